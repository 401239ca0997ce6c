// Command-line values shared by the emulator's commands: an ADDR:PORT endpoint, a list of GPU
// indices, and a token file. Each refuses bad input with an InputError naming the option.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/notice.h"

namespace schedlab::emu {

struct Endpoint {
  std::string host;  // a name, an IPv4 address, or an IPv6 address (without brackets)
  std::uint16_t port = 0;
};

// "127.0.0.1:7070", "node3:7070", "[::1]:7070". The port must be 1-65535 unless
// `allow_port_0` (a server asking for an ephemeral port).
Endpoint parse_endpoint(std::string_view text, const std::string& option, bool allow_port_0 = false);

// "0,1,2,3": distinct GPU indices, in the order given.
std::vector<std::uint32_t> parse_gpu_list(std::string_view text, const std::string& option);

// The token in `path`: the file's text without surrounding white space; at least 16
// characters, printable ASCII without spaces (it travels in an HTTP header). A missing file, a
// folder, an empty file are InputErrors naming the file and `option`; a file that its group or
// every user may read draws a notice (said to `notices`), since the token then guards nothing
// from them. The token itself is never part of a message.
std::string read_token_file(const std::string& path, const std::string& option, util::Notices& notices);

}  // namespace schedlab::emu
