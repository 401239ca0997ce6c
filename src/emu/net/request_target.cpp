// Request targets: the path and the query, %XX-decoded.
#include "emu/net/request_target.h"

#include <fmt/format.h>

namespace schedlab::emu {

void split_target(std::string_view target, std::string& path, std::map<std::string, std::string>& query) {
  query.clear();
  const auto q = target.find('?');
  path = std::string(target.substr(0, q));
  if (q == std::string_view::npos) return;
  std::string_view rest = target.substr(q + 1);
  if (auto h = rest.find('#'); h != std::string_view::npos) rest = rest.substr(0, h);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    std::string key = percent_decode(pair.substr(0, eq), true);
    std::string value = eq == std::string_view::npos ? std::string() : percent_decode(pair.substr(eq + 1), true);
    query[std::move(key)] = std::move(value);
  }
}

std::string percent_decode(std::string_view s, bool plus_is_space) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string log_safe(std::string_view s, std::size_t max) {
  std::string out;
  for (unsigned char c : s) {
    if (out.size() >= max) {
      out += "...";
      break;
    }
    if (c < 0x20 || c >= 0x7f || c == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

}  // namespace schedlab::emu
