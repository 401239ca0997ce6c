// Parsing of the emulator's command-line values.
#include "emu/endpoint.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <cctype>
#include <set>

#include "util/yaml_util.h"
#include "util/error.h"
#include "util/parse.h"

namespace schedlab::emu {

Endpoint parse_endpoint(std::string_view text, const std::string& option, bool allow_port_0) {
  auto bad = [&](const std::string& what) -> util::InputError {
    return util::InputError("", 0, option,
                            fmt::format("'{}': {} (expected ADDR:PORT, e.g. 127.0.0.1:7070)", text, what));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) throw bad("no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw bad("an IPv6 address goes in brackets, as [::1]:7070");
  }
  if (host.empty()) throw bad("no address");
  for (unsigned char c : host)
    if (c <= ' ' || c >= 0x7f || c == '/' || c == '[' || c == ']') throw bad("the address holds a character it cannot");
  std::int64_t port = 0;
  if (!util::try_parse_int(port_text, port)) throw bad("the port is not a number");
  if (port < (allow_port_0 ? 0 : 1) || port > 65535)
    throw bad(fmt::format("the port is out of range [{}, 65535]", allow_port_0 ? 0 : 1));
  return Endpoint{std::string(host), static_cast<std::uint16_t>(port)};
}

std::vector<std::uint32_t> parse_gpu_list(std::string_view text, const std::string& option) {
  std::vector<std::uint32_t> out;
  std::set<std::uint32_t> seen;
  std::vector<std::string_view> fields;
  util::split_fields(text, ',', fields);
  for (auto f : fields) {
    std::int64_t v = 0;
    f = util::trim(f);
    if (!util::try_parse_int(f, v) || v < 0 || v > 65535)
      throw util::InputError("", 0, option, fmt::format("'{}' is not a GPU index (0-65535) in '{}'", f, text));
    if (!seen.insert(static_cast<std::uint32_t>(v)).second)
      throw util::InputError("", 0, option, fmt::format("GPU {} is listed twice in '{}'", v, text));
    out.push_back(static_cast<std::uint32_t>(v));
  }
  if (out.empty()) throw util::InputError("", 0, option, "expected GPU indices, e.g. 0,1,2,3");
  return out;
}

std::string read_token_file(const std::string& path, const std::string& option, util::Notices& notices) {
  // The project's file checks: a folder, a device or a missing file is named as such.
  if (std::string problem = util::file_problem(path); !problem.empty())
    throw util::InputError(path, 0, option, problem);
  const std::string text = util::read_config_file(path);
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.empty())
    throw util::InputError(path, 0, option,
                           text.empty()
                               ? "the token file is empty (expected a token of at least 16 printable characters)"
                               : "the token file holds only white space (expected a token of at least 16 "
                                 "printable characters)");
  const std::string token(t);
  if (token.size() < 16)
    throw util::InputError(path, 0, option,
                           fmt::format("the token has {} characters; at least 16 are needed", token.size()));
  for (unsigned char c : token)
    if (c <= ' ' || c >= 0x7f)
      throw util::InputError(path, 0, option,
                             "the token must be printable ASCII without spaces (it is sent in a header)");
  // A token others can read guards nothing from them (a shared machine's other users).
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRGRP | S_IROTH)) != 0)
    notices.say(fmt::format("{}: {}: the token file is readable by {} (mode {:04o}): whoever can read it can register "
                            "agents and submit or stop jobs; chmod 600 {}",
                            path, option, (st.st_mode & S_IROTH) ? "every user of this machine" : "its group",
                            st.st_mode & 07777, path));
  return token;
}

}  // namespace schedlab::emu
