// The bounds every reader of outside input applies, kept in one place so that each kind of
// guard has one limit: the length of a line (trace rows, journal records, an external policy's
// replies, the emulator's rendezvous lines, files schedlab reads back) and the nesting depth
// of JSON (util/json_read.h and the Philly tokenizer). Input past a bound is refused with a
// located error before it costs more memory than the bound.
#pragma once

#include <cstddef>
#include <string>

namespace schedlab::util {

// The longest line any line reader accepts, its end of line not counted. A trace row is under
// 1 KB and a journal record a few KB; the longest legitimate lines are an external policy's
// replies, about 100 bytes per decision, so 16 MiB leaves room for 150,000 decisions in one
// tick. Reading up to the bound costs at most twice its size in memory.
inline constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

// "is longer than 16 MiB (16777216 bytes), the most a line of input may hold": for an error
// that names the file and the line.
std::string line_too_long_message();

// The deepest nesting of JSON arrays and objects schedlab reads (the deepest message of its
// protocols, a journal record or a Philly row nests under 10). Deeper input is refused while
// it is parsed, so a million '[' cost one pass and no deep tree (whose destruction or printing
// recurses).
inline constexpr int kMaxJsonDepth = 64;

}  // namespace schedlab::util
