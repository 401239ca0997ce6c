// Tests of the JSON pull tokenizer (workload/json_pull.h): each token kind, escapes and UTF-8,
// errors with their line and column, nesting, skip(), recover() and block boundaries (every
// case also read 1, 2, 3, ... bytes at a time).
#include <doctest/doctest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "util/error.h"
#include "util/input_limits.h"
#include "workload/json_pull.h"

using namespace schedlab;
using namespace schedlab::workload;
using Tok = JsonPull::Token;

namespace {

// One value as "kind:text" lines, e.g. {"a": 1} -> "{", "key:a", "number:1", "}".
std::vector<std::string> json_pull_tokens(std::string_view text, std::size_t block = JsonPull::kBlockBytes) {
  JsonPull in(JsonPull::Text{text, block});
  std::vector<std::string> out;
  in.begin_value();
  // By Token's order; a key, string or number is followed by its text.
  static const char* const names[] = {"{", "}", "[", "]", "key:", "string:", "number:", "true", "false", "null"};
  do {
    const Tok t = in.next();
    std::string item = names[static_cast<int>(t)];
    if (t == Tok::key || t == Tok::string || t == Tok::number) item += in.text();
    out.push_back(item);
  } while (in.depth() > 0);
  return out;
}

// "line:column: message" of the error reading one value, or "(no error)".
std::string json_pull_error(std::string_view text, std::size_t block = JsonPull::kBlockBytes) {
  try {
    json_pull_tokens(text, block);
  } catch (const JsonSyntaxError& e) {
    return std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": " + e.what();
  }
  return "(no error)";
}

// The same tokens, or the same error, whatever the block size.
void json_pull_check_blocks(std::string_view text) {
  const std::string whole = json_pull_error(text);
  const auto tokens = whole == "(no error)" ? json_pull_tokens(text) : std::vector<std::string>{};
  for (std::size_t block = 1; block <= text.size() + 1; ++block) {
    CAPTURE(block);
    CHECK(json_pull_error(text, block) == whole);
    if (whole == "(no error)") CHECK(json_pull_tokens(text, block) == tokens);
  }
}

}  // namespace

TEST_CASE("Workload.JsonPull.every_token_kind") {
  const std::string text =
      R"({"s": "x", "n": -1.5e3, "i": 0, "t": true, "f": false, "z": null, "a": [1, {}, []], "o": {"k": "v"}})";
  const std::vector<std::string> expected = {"{",        "key:s",    "string:x", "key:n", "number:-1.5e3",
                                             "key:i",    "number:0", "key:t",    "true",  "key:f",
                                             "false",    "key:z",    "null",     "key:a", "[",
                                             "number:1", "{",        "}",        "[",     "]",
                                             "]",        "key:o",    "{",        "key:k", "string:v",
                                             "}",        "}"};
  CHECK(json_pull_tokens(text) == expected);
  json_pull_check_blocks(text);
  // Scalars at the top, whitespace of all four kinds around tokens.
  CHECK(json_pull_tokens(" \t\r\n 42") == std::vector<std::string>{"number:42"});
  CHECK(json_pull_tokens("\"\"") == std::vector<std::string>{"string:"});
  CHECK(json_pull_tokens("[ ]") == std::vector<std::string>{"[", "]"});
  CHECK(json_pull_tokens("{ \n}") == std::vector<std::string>{"{", "}"});
  for (const char* n : {"0", "-0", "12", "0.5", "1e5", "1E+5", "-2.25e-3", "123456789012345678901234567890"}) {
    CAPTURE(n);
    CHECK(json_pull_tokens(n) == std::vector<std::string>{std::string("number:") + n});
  }
}

TEST_CASE("Workload.JsonPull.escapes") {
  CHECK(json_pull_tokens(R"(["plain", "a\"b", "\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC", "\ud83d\ude00", "x\u0000y"])") ==
        std::vector<std::string>{"[", "string:plain", "string:a\"b", "string:\\/\b\f\n\r\t",
                                 "string:A\xC3\xA9\xE2\x82\xAC", "string:\xF0\x9F\x98\x80",
                                 std::string("string:x\0y", 10), "]"});
  // Keys are decoded too.
  CHECK(json_pull_tokens(R"({"job\u0069d": 1})") == std::vector<std::string>{"{", "key:jobid", "number:1", "}"});
  // Raw UTF-8 passes as is.
  CHECK(json_pull_tokens("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"") ==
        std::vector<std::string>{"string:\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"});
  json_pull_check_blocks(R"(["ab\ncd", "\ud83d\ude00\u20ac", "\u00e9x"])");
  json_pull_check_blocks("[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"]");
}

TEST_CASE("Workload.JsonPull.errors_name_line_and_column") {
  struct Case {
    const char* text;
    const char* error;
  };
  const Case cases[] = {
      {"{\n \"a\": 1,\n \"b\" 2\n}", "3:6: expected ':' after a key, found '2'"},
      {"[1,]", "1:4: expected a value, found ']'"},
      {"[1 2]", "1:4: expected ',' or ']' after an array element, found '2'"},
      {"{\"a\": 1 \"b\": 2}", "1:9: expected ',' or '}' after an object member, found '\"'"},
      {"{\"a\": 1,}", "1:9: expected a key string after ',', found '}'"},
      {"{1: 2}", "1:2: expected a key string or '}', found '1'"},
      {"[1}", "1:3: expected ',' or ']' after an array element, found '}'"},
      {"{\"a\": [}", "1:8: expected a value, found '}'"},
      {"[01]", "1:3: expected ',' or ']' after an array element, found '1'"},
      {"[1.]", "1:4: invalid number: expected a digit after '.', found ']'"},
      {"[-]", "1:3: invalid number: expected a digit after '-', found ']'"},
      {"[1e+]", "1:5: invalid number: expected a digit in the exponent, found ']'"},
      {"[+1]", "1:2: expected a value, found '+'"},
      {"[tru]", "1:5: invalid literal: expected 'true', found ']'"},
      {"[nul", "1:5: invalid literal: expected 'null', found the end of the input"},
      {"[True]", "1:2: expected a value, found 'T'"},
      {"[1e400]", "1:2: number overflow parsing '1e400'"},
      {"[-1e400]", "1:2: number overflow parsing '-1e400'"},
      {"[\"a\nb\"]", "1:4: control character U+000A in a string (it must be escaped)"},
      {"[\"a\tb\"]", "1:4: control character U+0009 in a string (it must be escaped)"},
      {"[\"abc", "1:6: the input ends inside a string"},
      {"[\"a\\x\"]", "1:5: invalid escape: a backslash followed by 'x'"},
      {"[\"\\u12G4\"]", "1:7: invalid \\u escape: expected 4 hex digits, found 'G'"},
      {"[\"\\udc00\"]", "1:3: invalid \\u escape: \\uDC00 is a low surrogate without a high one before it"},
      {"[\"\\ud800x\"]",
       "1:3: invalid \\u escape: the high surrogate \\uD800 must be followed by a low one (\\uDC00 to \\uDFFF)"},
      {"[\"\\ud800\\u0041\"]",
       "1:3: invalid \\u escape: the high surrogate \\uD800 must be followed by a low one (\\uDC00 to \\uDFFF), not "
       "\\u0041"},
      {"[\"\xFF\"]", "1:3: invalid UTF-8 byte 0xFF in a string"},
      {"[\"\xC0\x80\"]", "1:3: invalid UTF-8 byte 0xC0 in a string"},          // overlong
      {"[\"\xED\xA0\x80\"]", "1:3: invalid UTF-8 byte 0xED in a string"},      // an encoded surrogate
      {"[\"\xF4\x90\x80\x80\"]", "1:3: invalid UTF-8 byte 0xF4 in a string"},  // above U+10FFFF
      {"[\"\xE2\x82\"]", "1:3: invalid UTF-8 byte 0xE2 in a string"},          // cut short
      {"{\"a\": [1,\n  2,\n  x]}", "3:3: expected a value, found 'x'"},
      {"", "1:1: expected a value, found the end of the input"},
      {"[1", "1:3: expected ',' or ']' after an array element, found the end of the input"},
      {"[\x01]", "1:2: expected a value, found byte 0x01"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK(json_pull_error(c.text) == c.error);
    json_pull_check_blocks(c.text);
  }
  // Numbers that stay finite: a tiny one, and long integers below 1e300.
  CHECK(json_pull_error("[1e-400]") == "(no error)");
  CHECK(json_pull_error("[" + std::string(300, '9') + "]") == "(no error)");
  CHECK(json_pull_error("[" + std::string(310, '9') + "]").find("number overflow parsing '999") != std::string::npos);
}

TEST_CASE("Workload.JsonPull.nesting_and_skip") {
  // As deep as any JSON schedlab reads may nest (deeper:
  // Workload.JsonPull.bounds_the_depth_and_token_bounds_of_every_json_schedlab_reads).
  const std::string deep = std::string(util::kMaxJsonDepth, '[') + std::string(util::kMaxJsonDepth, ']');
  CHECK(json_pull_tokens(deep).size() == std::size_t{2} * util::kMaxJsonDepth);
  CHECK(json_pull_error(std::string(60, '[') + std::string(59, ']') + "}").rfind("1:120: expected ',' or ']'", 0) ==
        0);

  // skip() passes over a whole container (validating it), and does nothing after a scalar.
  const std::string text = R"({"skip": {"a": [1, 2, {"b": "]}"}], "c": {}}, "n": 5, "keep": [true]})";
  for (std::size_t block : {std::size_t{1}, std::size_t{3}, JsonPull::kBlockBytes}) {
    CAPTURE(block);
    JsonPull in(JsonPull::Text{text, block});
    in.begin_value();
    CHECK(in.next() == Tok::object_begin);
    CHECK(in.next() == Tok::key);
    CHECK(in.text() == "skip");
    CHECK(in.next() == Tok::object_begin);
    CHECK(in.depth() == 2);
    in.skip();
    CHECK(in.depth() == 1);
    CHECK(in.next() == Tok::key);
    CHECK(in.text() == "n");
    CHECK(in.next() == Tok::number);
    in.skip();
    CHECK(in.next() == Tok::key);
    CHECK(in.text() == "keep");
    CHECK(in.next() == Tok::array_begin);
    CHECK(in.next() == Tok::literal_true);
    CHECK(in.next() == Tok::array_end);
    CHECK(in.next() == Tok::object_end);
    CHECK(in.depth() == 0);
  }
  // An error inside a skipped container is an error all the same.
  JsonPull bad(JsonPull::Text{R"({"skip": [1, 2,, 3], "keep": 1})"});
  bad.begin_value();
  bad.next();
  bad.next();
  bad.next();
  CHECK_THROWS_WITH_AS(bad.skip(), "expected a value, found ','", JsonSyntaxError);
}

TEST_CASE("Workload.JsonPull.raw_bytes_and_lines") {
  JsonPull in(JsonPull::Text{"[\n  {\"a\": 1},\nxx\n{}", 2});
  CHECK(in.lines_read() == 0);
  CHECK(in.peek() == '[');
  in.bump();
  CHECK(in.line() == 1);
  CHECK(in.lines_read() == 1);
  in.bump();  // '\n'
  CHECK(in.line() == 2);
  CHECK(in.lines_read() == 1);
  in.bump();
  in.bump();
  CHECK(in.peek() == '{');
  in.begin_value();
  in.next();
  in.next();
  in.next();
  CHECK(in.next() == Tok::object_end);
  CHECK(in.peek() == ',');
  in.bump();
  in.bump();  // '\n'
  CHECK(in.line() == 3);
  in.skip_line();
  CHECK(in.peek() == '\n');
  in.bump();
  CHECK(in.line() == 4);
  CHECK(in.peek() == '{');
  in.bump();
  in.bump();
  CHECK(in.peek() == -1);
  CHECK(in.lines_read() == 4);  // the last line has no newline: it counts
}

TEST_CASE("Workload.JsonPull.recover_counts_brackets") {
  // After an error, the broken value ends where its brackets close, strings and escapes
  // respected; reading goes on after it.
  const std::string text = "{\"a\": x, \"b\": \"]}\\\"}\", \"c\": [{}]}\n{\"next\": 1}";
  for (std::size_t block : {std::size_t{1}, std::size_t{4}, JsonPull::kBlockBytes}) {
    CAPTURE(block);
    JsonPull in(JsonPull::Text{text, block});
    in.begin_value();
    in.next();
    in.next();
    CHECK_THROWS_AS(in.next(), JsonSyntaxError);
    CHECK(in.recover());
    CHECK(in.peek() == '\n');
    in.bump();
    CHECK(in.line() == 2);
    in.begin_value();
    CHECK(in.next() == Tok::object_begin);
    CHECK(in.next() == Tok::key);
    CHECK(in.text() == "next");
  }
  // A broken string: counting starts at its opening quote, so its brackets do not count.
  {
    JsonPull in(JsonPull::Text{"{\"a\": \"x\x01]}\"}, 1"});
    in.begin_value();
    in.next();
    in.next();
    CHECK_THROWS_AS(in.next(), JsonSyntaxError);
    CHECK(in.recover());
    CHECK(in.peek() == ',');
  }
  // The input ends before the brackets close.
  JsonPull cut(JsonPull::Text{"{\"a\": [1, ?, {\"b\": 2}"});
  cut.begin_value();
  CHECK_THROWS_AS(
      [&] {
        while (true) cut.next();
      }(),
      JsonSyntaxError);
  CHECK_FALSE(cut.recover());
  CHECK(cut.peek() == -1);
}

TEST_CASE("Workload.JsonPull.reads_files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("schedlab-json-pull-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string text = "[{\"a\": \"" + std::string(3 << 20, 'x') + "\"}, 7]";  // a token of 3 blocks
  const std::string gz = (dir / "t.json.gz").string();
  gzFile f = gzopen(gz.c_str(), "wb");
  REQUIRE(f);
  gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
  gzclose(f);
  JsonPull in(gz);
  in.begin_value();
  CHECK(in.next() == Tok::array_begin);
  CHECK(in.next() == Tok::object_begin);
  CHECK(in.next() == Tok::key);
  CHECK(in.next() == Tok::string);
  CHECK(in.text().size() == (3u << 20));
  CHECK(in.next() == Tok::object_end);
  CHECK(in.next() == Tok::number);
  CHECK(in.text() == "7");
  CHECK(in.next() == Tok::array_end);
  CHECK(in.peek() == -1);
  fs::remove_all(dir);
  CHECK_THROWS_AS(JsonPull((dir / "missing.json").string()), util::InputError);
}

TEST_CASE("Workload.JsonPull.bounds_the_depth_and_token_bounds_of_every_json_schedlab_reads") {
  const auto nested = [](std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  CHECK(json_pull_error(nested(util::kMaxJsonDepth)) == "(no error)");
  CHECK(json_pull_error(nested(util::kMaxJsonDepth + 1)) ==
        "1:65: nested deeper than 64 levels (the most any JSON schedlab reads may nest)");
  CHECK(json_pull_error(std::string(1'000'000, '[')) ==
        "1:65: nested deeper than 64 levels (the most any JSON schedlab reads may nest)");
  // recover() passes over the rest by counting, without holding it.
  const std::string text = "[" + nested(100) + "] [1]";
  JsonPull in(JsonPull::Text{text});
  in.begin_value();
  CHECK(in.next() == Tok::array_begin);
  CHECK_THROWS_AS(in.skip(), JsonSyntaxError);
  CHECK(in.recover());
  in.begin_value();
  CHECK(in.next() == Tok::array_begin);
  CHECK(in.next() == Tok::number);
  CHECK(in.text() == "1");
  // A string longer than a line may be: refused before the buffer holds twice the bound.
  CHECK(json_pull_error("[\"" + std::string(util::kMaxLineBytes + 10, 'x') + "\"]") ==
        "1:2: a string or number longer than 16 MiB (16777216 bytes), the most a token of input may hold");
  CHECK(json_pull_error("[\"" + std::string(util::kMaxLineBytes - 10, 'x') + "\"]") == "(no error)");
}
