// Text from input, made safe to print and to write: the one sanitising function for anything
// that came from a file, the command line or the API and goes to a terminal or into results
// (messages, notices, CSV fields, names in JSON), and the one UTF-8 check made where text
// enters.
//
// The rule: text is checked once at the edge and escaped once on the way out. YAML input
// (every scenario, configuration file and --set value) must be valid UTF-8: config/yaml_util
// refuses anything else with the line. Trace rows and API names are interned through
// workload::StringPool, which stores them made printable (see printable()), so that a job
// from a third-party trace with a stray Latin-1 byte still runs, under a name that shows the
// byte. Whatever is printed or written as text passes printable(): a control byte never
// reaches a terminal (ESC would drive it) nor a CSV row (a newline would split the record).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace schedlab::util {

// The offset of the first byte of `s` that is not part of well-formed UTF-8 (overlong forms,
// surrogates and code points past U+10FFFF included), or npos when all of it is.
std::size_t utf8_error_at(std::string_view s);
inline bool valid_utf8(std::string_view s) { return utf8_error_at(s) == std::string_view::npos; }

// True when printable(s) would return `s` unchanged (the common case, checked without a copy).
bool is_printable(std::string_view s);

// `s` with every control byte (below 0x20, and 0x7f), every C1 control character (U+0080 to
// U+009F: U+009B is a terminal's CSI like ESC [) and every byte that is not part of valid
// UTF-8 written as a visible `\xNN` escape (`\x1b`, `\x0a`, `\xc2\x9b`, `\xff`). Other text,
// non-ASCII letters included, is kept as is. The result is valid UTF-8 without control bytes.
std::string printable(std::string_view s);
// The same, appended to `out`.
void append_printable(std::string& out, std::string_view s);

}  // namespace schedlab::util
