// A strict, zero-copy JSON pull tokenizer over a file (gzip or plain) read in 1 MiB blocks.
// It exists for speed: the raw Philly log is ~100 MB of per-attempt JSON, and nlohmann-json
// read it at 0.16 M jobs/s as a DOM per job; even its SAX interface (json::sax_parse with a
// handler that does nothing) measured 87 MB/s, 0.34 M jobs/s, on the benchmark's file of one
// attempt per job. This walks the bytes once (400-650 MB/s on the same machine), validates
// full JSON syntax (RFC 8259, with nlohmann's checks: UTF-8 in strings, paired \u surrogates,
// no number beyond a double), builds nothing, and hands out views into its buffer; memory holds
// one block (or twice the longest token, if longer), never the file. The bounds of every JSON
// schedlab reads hold here too (util/input_limits.h): nesting deeper than kMaxJsonDepth and a
// token longer than kMaxLineBytes are syntax errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "util/file_bytes.h"

namespace schedlab::workload {

// Invalid JSON at line:column (1-based; the column counts bytes).
class JsonSyntaxError : public std::runtime_error {
 public:
  JsonSyntaxError(long line, long column, const std::string& what)
      : std::runtime_error(what), line_(line), column_(column) {}
  long line() const { return line_; }
  long column() const { return column_; }

 private:
  long line_;
  long column_;
};

// Usage: position the input at a value (raw byte access: peek/bump), begin_value(), then
// next() until that value has ended (depth() back to 0). next() checks the grammar (commas,
// colons, matching brackets) and returns one token at a time; a key is always followed by its
// value's tokens. skip() passes over the value just begun. Errors throw JsonSyntaxError.
//
// text() of a key, string or number is a view valid until the next call that reads input;
// strings are decoded (escapes, \uXXXX as UTF-8) only when they contain a backslash.
class JsonPull {
 public:
  enum class Token : std::uint8_t {
    object_begin,
    object_end,
    array_begin,
    array_end,
    key,  // an object member's name; the member's value comes next
    string,
    number,
    literal_true,
    literal_false,
    null,
  };

  static constexpr std::size_t kBlockBytes = 1 << 20;
  // Zeroed bytes after the buffer's '\0' sentinel: the string scanner loads 16 bytes at a time
  // and may read that far past it (never input, but defined).
  static constexpr std::size_t kScanPadding = 16;

  // Reads a file, gzip or plain (util/file_bytes.h). Throws InputError when it cannot be opened,
  // ReadError (util/line_reader.h) when it cannot be read.
  explicit JsonPull(const std::string& path);
  // Reads `text` (copied), `block_bytes` at a time: tests use tiny blocks to put every token
  // across a block boundary.
  struct Text {
    std::string_view text;
    std::size_t block_bytes = kBlockBytes;
  };
  explicit JsonPull(Text text);
  ~JsonPull();
  JsonPull(const JsonPull&) = delete;
  JsonPull& operator=(const JsonPull&) = delete;

  const std::string& path() const { return path_; }

  // Raw bytes, for a caller's own framing between values. peek(): the next byte (0..255) or
  // -1 at the end of the input; bump() consumes it (if any); skip_line() consumes up to the
  // next '\n' (not included).
  int peek() {
    if (p_ == end_ && !refill(p_)) return -1;
    return static_cast<unsigned char>(*p_);
  }
  void bump() {
    if (peek() < 0) return;
    if (*p_ == '\n') new_line(p_ + 1);
    ++p_;
  }
  void skip_line();

  // The line of the next byte (1-based); lines_read(): the lines begun so far, as a line
  // reader counts them (a last line without '\n' counts, an empty one after it does not).
  long line() const { return line_; }
  long lines_read() const { return offset(p_) == line_begin_ ? line_ - 1 : line_; }

  // Starts reading one JSON value (whitespace before it allowed).
  void begin_value();
  Token next();
  // After next() returned object_begin or array_begin: consumes the rest of that container
  // (validating it). After any other token: nothing.
  void skip() {
    if (last_ == Token::object_begin || last_ == Token::array_begin) skip_container();
  }
  std::string_view text() const { return text_; }
  // Containers open now.
  std::size_t depth() const { return stack_.size(); }

  // After a JsonSyntaxError: skips to where the broken value would end by counting brackets
  // outside strings (a backslash escapes the next byte; line ends are not bytes of a string,
  // as a line-by-line scanner sees them), from the start of the token that failed. True with
  // the input after its last bracket; false when the input ends first.
  bool recover();

 private:
  enum class Expect : std::uint8_t { value, first_member, first_element, colon, after_value, done };

  void skip_container();
  bool refill(const char* keep);
  // `bytes` for input and the sentinel, then kScanPadding zeroed bytes.
  static std::unique_ptr<char[]> allocate_buffer(std::size_t bytes);
  std::size_t read_block(char* into, std::size_t bytes);
  std::int64_t offset(const char* p) const { return base_ + (p - buf_.get()); }
  void new_line(const char* begin) {
    ++line_;
    line_begin_ = offset(begin);
  }
  void skip_ws() {
    if (static_cast<unsigned char>(*p_) > ' ') return;  // most tokens follow another at once
    skip_ws_run();
  }
  void skip_ws_run();
  // The next token starts at p_. (Tokens hold no line end, and an error leaves the stack as
  // it was where the failed token began, so its line and depth need no copy.)
  void mark() { tok_ = p_; }
  Token value();
  Token close(Token t) {
    ++p_;
    stack_.pop_back();
    expect_ = stack_.empty() ? Expect::done : Expect::after_value;
    return t;
  }
  Token scalar(Token t) {
    expect_ = stack_.empty() ? Expect::done : Expect::after_value;
    return t;
  }
  // Token scanners from tok_: false when the token may go on past the end of the buffer
  // (refill and call again); they throw for invalid text.
  bool scan_string();
  bool scan_number();
  bool scan_literal(std::string_view word);
  int decode_escape(const unsigned char* q);  // bytes consumed; 0: needs more input
  [[noreturn]] void fail(const char* at, const std::string& what) const;
  [[noreturn]] void fail_found(const std::string& expected) const;
  [[noreturn]] void fail_too_deep() const;
  [[noreturn]] void fail_too_long() const;

  std::string path_;
  std::unique_ptr<util::FileBytes> file_;  // null for Text input
  std::string source_;  // Text input
  std::size_t source_pos_ = 0;
  std::size_t block_ = kBlockBytes;

  // buf_[0, end_ - buf_) holds input bytes, *end_ == '\0' (a sentinel that stops every scan).
  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::int64_t base_ = 0;  // offset in the input of buf_[0]
  bool eof_ = false;
  long line_ = 1;
  std::int64_t line_begin_ = 0;  // offset of the current line's first byte

  std::string stack_;  // '{' or '[' per open container
  Expect expect_ = Expect::done;
  Token last_ = Token::null;
  std::string_view text_;
  std::string scratch_;  // a decoded string

  const char* tok_ = nullptr;  // where the token being read began, for recover()
};

}  // namespace schedlab::workload
