// UTF-8 checking and the escaping of control bytes (see text.h).
#include "util/text.h"

#include <cstdint>

namespace schedlab::util {

namespace {

// The length of the well-formed UTF-8 sequence starting at s[i], or 0 when none starts there
// (Unicode 15, table 3-7).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t c = b(i);
  if (c < 0x80) return 1;
  const std::size_t left = s.size() - i;
  auto cont = [&](std::size_t k, std::uint8_t lo = 0x80, std::uint8_t hi = 0xbf) {
    return k < left && b(i + k) >= lo && b(i + k) <= hi;
  };
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;  // no surrogates
  if (c == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

bool control_ascii(std::uint8_t c) { return c < 0x20 || c == 0x7f; }

// A C1 control character: U+0080 to U+009F, encoded as 0xC2 0x80..0x9F.
bool c1_control(std::string_view s, std::size_t i, std::size_t len) {
  return len == 2 && static_cast<std::uint8_t>(s[i]) == 0xc2 && static_cast<std::uint8_t>(s[i + 1]) <= 0x9f;
}

void escape_byte(std::string& out, std::uint8_t c) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 0xf];
}

}  // namespace

std::size_t utf8_error_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

bool is_printable(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c >= 0x20 && c < 0x7f) {  // the ASCII fast path
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0 || control_ascii(c) || c1_control(s, i, n)) return false;
    i += n;
  }
  return true;
}

void append_printable(std::string& out, std::string_view s) {
  out.reserve(out.size() + s.size());
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<std::uint8_t>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(s, i);
    if (n == 0 || control_ascii(c)) {
      escape_byte(out, c);
      ++i;
    } else if (c1_control(s, i, n)) {
      escape_byte(out, c);
      escape_byte(out, static_cast<std::uint8_t>(s[i + 1]));
      i += 2;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
}

std::string printable(std::string_view s) {
  if (is_printable(s)) return std::string(s);
  std::string out;
  append_printable(out, s);
  return out;
}

}  // namespace schedlab::util
