// An HTTP request target ("/v1/jobs?state=running&user=a%2Fb") into its path and decoded query
// parameters, apart from the server so that the router, the fuzzer and the tests share it.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace schedlab::emu {

// Splits "/a/b?x=1&y=%20" into path and decoded query parameters.
void split_target(std::string_view target, std::string& path, std::map<std::string, std::string>& query);
// Decodes %XX and '+' (query strings); a malformed escape is kept as written.
std::string percent_decode(std::string_view s, bool plus_is_space);

}  // namespace schedlab::emu
