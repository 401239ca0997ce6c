// The JSON pull tokenizer (see json_pull.h): the grammar's state machine, and scanners for
// strings (escapes, UTF-8), numbers and literals. Block input is json_pull_input.cpp.
#include "workload/json_pull.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/error.h"
#include "util/input_limits.h"
#include "util/line_reader.h"

namespace schedlab::workload {
namespace {

// Bytes that end a run of plain string text: '"', '\\', control characters (the '\0' sentinel
// among them) and every byte of a multi-byte UTF-8 sequence, checked one sequence at a time.
constexpr std::array<bool, 256> kJsonStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80;
  return t;
}();

// The first byte at or after q that ends plain string text (kJsonStringStop). The buffer holds
// a stop byte at its end (the '\0' sentinel) and JsonPull::kScanPadding bytes after it, so 16-byte
// loads never leave it. Sixteen bytes at a time where SSE2 is there (every x86-64): dates and
// ids are 19 to 40 bytes, and the byte loop was a sixth of the raw Philly reader's time.
const unsigned char* skip_plain(const unsigned char* q) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  for (;;) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
    // Signed, bytes >= 0x80 are negative: "less than 0x20" takes them with the control bytes.
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                      _mm_cmplt_epi8(v, space));
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return q + __builtin_ctz(static_cast<unsigned>(mask));
    q += 16;
  }
#else
  while (!kJsonStringStop[*q]) ++q;
  return q;
#endif
}

bool json_is_digit(char c) { return c >= '0' && c <= '9'; }

int json_hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The length of the well-formed UTF-8 sequence at q (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF), or 0. Reads no byte past the first bad one.
int json_utf8_length(const unsigned char* q) {
  const unsigned char c = q[0];
  auto cont = [](unsigned char b, unsigned char lo = 0x80, unsigned char hi = 0xBF) { return b >= lo && b <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(q[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned char lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return cont(q[1], lo, hi) && cont(q[2]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned char lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return cont(q[1], lo, hi) && cont(q[2]) && cont(q[3]) ? 4 : 0;
  }
  return 0;
}

void json_append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A byte for a message: 'x' when printable ASCII, else its hex value.
std::string json_byte_name(unsigned char c) {
  if (c >= 0x20 && c < 0x7F) return fmt::format("'{}'", static_cast<char>(c));
  return fmt::format("byte 0x{:02X}", c);
}

}  // namespace

// Keeps [keep, end_) at the front of the buffer and reads more after it; p_ and tok_ move with
// the bytes. False at the end. Whole blocks, as LineReader reads them (a read error names the
// same line), except after a token longer than a block: then as many bytes as it has, so that
// the buffer doubles and a long token is scanned again only O(log n) times.
bool JsonPull::refill(const char* keep) {
  if (eof_) return false;
  const std::size_t kept = static_cast<std::size_t>(end_ - keep);
  // Only a token is kept across a refill: one longer than a line may be is refused before the
  // buffer grows past twice the bound (and, exactly, when it ends: check_token_length).
  if (kept > util::kMaxLineBytes) fail_too_long();
  const std::size_t want = std::min(std::max(block_, kept), std::size_t{1} << 30);
  const std::ptrdiff_t p_at = p_ - keep, tok_at = tok_ - keep;
  base_ += keep - buf_.get();
  if (kept + want + 1 > cap_) {
    cap_ = kept + want + 1;
    auto bigger = allocate_buffer(cap_);
    std::memcpy(bigger.get(), keep, kept);
    buf_ = std::move(bigger);
  } else if (kept > 0) {
    std::memmove(buf_.get(), keep, kept);
  }
  char* buf = buf_.get();
  const std::size_t n = read_block(buf + kept, want);
  end_ = buf + kept + n;
  buf[kept + n] = '\0';
  p_ = buf + p_at;
  tok_ = tok_at >= 0 ? buf + tok_at : buf;  // an earlier token's start is gone: never used again
  if (n == 0) eof_ = true;
  return n > 0;
}

void JsonPull::skip_line() {
  for (;;) {
    if (p_ == end_ && !refill(p_)) return;
    const void* nl = std::memchr(p_, '\n', static_cast<std::size_t>(end_ - p_));
    if (nl) {
      p_ = static_cast<const char*>(nl);
      return;
    }
    p_ = end_;
  }
}

void JsonPull::skip_ws_run() {
  for (;;) {
    const char c = *p_;
    if (c == ' ' || c == '\t' || c == '\r') {
      ++p_;
    } else if (c == '\n') {
      ++p_;
      new_line(p_);
    } else if (c != '\0' || p_ != end_ || !refill(p_)) {
      return;
    }
  }
}

void JsonPull::fail_found(const std::string& expected) const {
  const std::string found =
      p_ == end_ ? std::string("the end of the input") : json_byte_name(static_cast<unsigned char>(*p_));
  fail(p_, fmt::format("{}, found {}", expected, found));
}

void JsonPull::begin_value() {
  stack_.clear();
  expect_ = Expect::value;
}

JsonPull::Token JsonPull::next() {
  skip_ws();
  mark();
  switch (expect_) {
    case Expect::after_value: {
      const char c = *p_;
      const char open = stack_.back();
      if (c == ',') {
        ++p_;
        skip_ws();
        mark();
        if (open == '[') return last_ = value();
        if (*p_ != '"') fail_found("expected a key string after ','");
        while (!scan_string()) refill(tok_);
        expect_ = Expect::colon;
        return last_ = Token::key;
      }
      if (c == '}' && open == '{') return last_ = close(Token::object_end);
      if (c == ']' && open == '[') return last_ = close(Token::array_end);
      fail_found(open == '{' ? "expected ',' or '}' after an object member"
                             : "expected ',' or ']' after an array element");
    }
    case Expect::colon:
      if (*p_ != ':') fail_found("expected ':' after a key");
      ++p_;
      skip_ws();
      mark();
      return last_ = value();
    case Expect::first_member:
      if (*p_ == '}') return last_ = close(Token::object_end);
      if (*p_ != '"') fail_found("expected a key string or '}'");
      while (!scan_string()) refill(tok_);
      expect_ = Expect::colon;
      return last_ = Token::key;
    case Expect::first_element:
      if (*p_ == ']') return last_ = close(Token::array_end);
      return last_ = value();
    case Expect::value:
      return last_ = value();
    case Expect::done:
      break;
  }
  assert(!"JsonPull::next() after the value ended; call begin_value()");
  fail_found("expected no more tokens");
}

JsonPull::Token JsonPull::value() {
  switch (*p_) {
    case '{':
      if (stack_.size() >= static_cast<std::size_t>(util::kMaxJsonDepth)) fail_too_deep();
      ++p_;
      stack_ += '{';
      expect_ = Expect::first_member;
      return Token::object_begin;
    case '[':
      if (stack_.size() >= static_cast<std::size_t>(util::kMaxJsonDepth)) fail_too_deep();
      ++p_;
      stack_ += '[';
      expect_ = Expect::first_element;
      return Token::array_begin;
    case '"':
      while (!scan_string()) refill(tok_);
      return scalar(Token::string);
    case 't':
      while (!scan_literal("true")) refill(tok_);
      return scalar(Token::literal_true);
    case 'f':
      while (!scan_literal("false")) refill(tok_);
      return scalar(Token::literal_false);
    case 'n':
      while (!scan_literal("null")) refill(tok_);
      return scalar(Token::null);
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
      while (!scan_number()) refill(tok_);
      return scalar(Token::number);
    default:
      fail_found("expected a value");
  }
}

void JsonPull::skip_container() {
  const std::size_t outer = stack_.size() - 1;
  while (stack_.size() > outer) next();
}

bool JsonPull::scan_string() {
  const auto* start = reinterpret_cast<const unsigned char*>(tok_);
  const auto* end = reinterpret_cast<const unsigned char*>(end_);
  const unsigned char* q = start + 1;
  const unsigned char* plain = q;  // the start of text not yet copied to scratch_
  bool decoded = false;
  for (;;) {
    q = skip_plain(q);
    const unsigned char c = *q;
    if (c == '"') {
      if (static_cast<std::size_t>(q - start - 1) > util::kMaxLineBytes) fail_too_long();
      if (decoded) {
        scratch_.append(reinterpret_cast<const char*>(plain), static_cast<std::size_t>(q - plain));
        text_ = scratch_;
      } else {
        text_ = std::string_view(reinterpret_cast<const char*>(start + 1), static_cast<std::size_t>(q - start - 1));
      }
      p_ = reinterpret_cast<const char*>(q + 1);
      return true;
    }
    if (c == '\\') {
      if (!decoded) {
        scratch_.clear();
        decoded = true;
      }
      scratch_.append(reinterpret_cast<const char*>(plain), static_cast<std::size_t>(q - plain));
      const int n = decode_escape(q);
      if (n == 0) return false;
      q += n;
      plain = q;
    } else if (c >= 0x80) {
      const int n = json_utf8_length(q);
      if (n == 0) {
        if (!eof_ && end - q < 4) return false;
        fail(reinterpret_cast<const char*>(q), fmt::format("invalid UTF-8 byte 0x{:02X} in a string", c));
      }
      q += n;
    } else if (q == end) {
      if (!eof_) return false;
      fail(reinterpret_cast<const char*>(q), "the input ends inside a string");
    } else {
      fail(reinterpret_cast<const char*>(q),
           fmt::format("control character U+{:04X} in a string (it must be escaped)", c));
    }
  }
}

int JsonPull::decode_escape(const unsigned char* q) {
  const auto* end = reinterpret_cast<const unsigned char*>(end_);
  auto at = [](const unsigned char* x) { return reinterpret_cast<const char*>(x); };
  // Four hex digits at x as a code unit; -2: needs more input; throws for a non-hex byte.
  auto hex4 = [&](const unsigned char* x) -> long {
    long v = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = json_hex_value(x[i]);
      if (h < 0) {
        if (x + i == end && !eof_) return -2;
        fail(at(x + i), fmt::format("invalid \\u escape: expected 4 hex digits, found {}",
                                    x + i == end ? std::string("the end of the input") : json_byte_name(x[i])));
      }
      v = v * 16 + h;
    }
    return v;
  };
  const unsigned char e = q[1];
  switch (e) {
    case '"':
    case '\\':
    case '/':
      scratch_ += static_cast<char>(e);
      return 2;
    case 'b':
      scratch_ += '\b';
      return 2;
    case 'f':
      scratch_ += '\f';
      return 2;
    case 'n':
      scratch_ += '\n';
      return 2;
    case 'r':
      scratch_ += '\r';
      return 2;
    case 't':
      scratch_ += '\t';
      return 2;
    case 'u': {
      const long hi = hex4(q + 2);
      if (hi == -2) return 0;
      if (hi >= 0xDC00 && hi <= 0xDFFF)
        fail(at(q), fmt::format("invalid \\u escape: \\u{:04X} is a low surrogate without a high one before it", hi));
      if (hi < 0xD800 || hi > 0xDBFF) {
        json_append_utf8(scratch_, static_cast<std::uint32_t>(hi));
        return 6;
      }
      for (int i = 6; i < 8; ++i)
        if (q[i] != "\\u"[i - 6]) {
          if (q + i == end && !eof_) return 0;
          fail(at(q), fmt::format("invalid \\u escape: the high surrogate \\u{:04X} must be followed by a low one "
                                  "(\\uDC00 to \\uDFFF)",
                                  hi));
        }
      const long lo = hex4(q + 8);
      if (lo == -2) return 0;
      if (lo < 0xDC00 || lo > 0xDFFF)
        fail(at(q), fmt::format("invalid \\u escape: the high surrogate \\u{:04X} must be followed by a low one "
                                "(\\uDC00 to \\uDFFF), not \\u{:04X}",
                                hi, lo));
      json_append_utf8(scratch_, static_cast<std::uint32_t>(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)));
      return 12;
    }
    default:
      if (q + 1 == end) {
        if (!eof_) return 0;
        fail(at(q + 1), "the input ends inside a string");
      }
      fail(at(q + 1), fmt::format("invalid escape: a backslash followed by {}", json_byte_name(e)));
  }
}

bool JsonPull::scan_number() {
  const char* q = tok_;
  bool exponent = false;
  // A byte that cannot go on the number: an error, unless the buffer ended there.
  auto bad = [&](const char* at, const char* expected) {
    if (at == end_ && !eof_) return false;
    fail(at, fmt::format(
                 "invalid number: expected {}, found {}", expected,
                 at == end_ ? std::string("the end of the input") : json_byte_name(static_cast<unsigned char>(*at))));
  };
  if (*q == '-') ++q;
  if (*q == '0') {
    ++q;
  } else if (json_is_digit(*q)) {
    while (json_is_digit(*q)) ++q;
  } else {
    return bad(q, "a digit after '-'");
  }
  if (*q == '.') {
    ++q;
    if (!json_is_digit(*q)) return bad(q, "a digit after '.'");
    while (json_is_digit(*q)) ++q;
  }
  if (*q == 'e' || *q == 'E') {
    exponent = true;
    ++q;
    if (*q == '+' || *q == '-') ++q;
    if (!json_is_digit(*q)) return bad(q, "a digit in the exponent");
    while (json_is_digit(*q)) ++q;
  }
  if (q == end_ && !eof_) return false;
  const std::size_t len = static_cast<std::size_t>(q - tok_);
  if (len > util::kMaxLineBytes) fail_too_long();
  // Without an exponent, 300 characters stay below 1e300: only longer ones can overflow.
  if (exponent || len > 300) {
    const std::string copy(tok_, len);
    if (!std::isfinite(std::strtod(copy.c_str(), nullptr)))
      fail(tok_, fmt::format("number overflow parsing '{}'", len > 40 ? copy.substr(0, 37) + "..." : copy));
  }
  text_ = std::string_view(tok_, len);
  p_ = q;
  return true;
}

bool JsonPull::scan_literal(std::string_view word) {
  for (std::size_t i = 0; i < word.size(); ++i) {
    const char* at = tok_ + i;
    if (*at == word[i]) continue;
    if (at == end_ && !eof_) return false;
    fail(at, fmt::format(
                 "invalid literal: expected '{}', found {}", word,
                 at == end_ ? std::string("the end of the input") : json_byte_name(static_cast<unsigned char>(*at))));
  }
  text_ = std::string_view(tok_, word.size());
  p_ = tok_ + word.size();
  return true;
}

bool JsonPull::recover() {
  p_ = tok_;
  std::size_t depth = stack_.size();
  stack_.clear();
  expect_ = Expect::done;
  bool in_string = false, escape = false;
  while (depth > 0) {
    if (p_ == end_ && !refill(p_)) return false;
    const char c = *p_++;
    if (c == '\n') {
      new_line(p_);
      continue;
    }
    if (c == '\r') {  // "\r\n" ends a line: the '\r' is not text either
      if (p_ == end_ && !refill(p_)) return false;
      if (*p_ == '\n') continue;
    }
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

}  // namespace schedlab::workload
