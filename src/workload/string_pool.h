// StringPool: the workload's interned strings (users, pools, GPU requests, trace ids), so that
// a JobSpec holds 32-bit labels and a million-job trace costs tens of bytes per job. A trace
// of a million unique job ids interns a million strings: they live side by side in large
// blocks, found through an open-addressing table of labels, which costs no allocation per
// string (a std::string per entry and a node per map entry cost the raw Philly reader half
// of its time, most of it in malloc and free).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace schedlab::workload {

using Label = std::uint32_t;          // index into a StringPool
inline constexpr Label kNoLabel = 0;  // the pool's entry 0 is always ""

// Interns strings; entry 0 is "". Views returned by str() stay valid as long as the pool,
// also across later intern() calls and a move of the pool (the blocks never move). Text is
// stored made printable (util/text.h printable(): control bytes and invalid UTF-8 as `\xNN`),
// so every label's text is valid UTF-8 without control bytes.
class StringPool {
 public:
  StringPool();
  StringPool(StringPool&& other) noexcept;
  StringPool& operator=(StringPool&& other) noexcept;
  // A copy would hold views into the other pool's blocks.
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;

  Label intern(std::string_view s);
  std::string_view str(Label l) const { return strings_[l]; }
  std::size_t size() const { return strings_.size(); }

 private:
  std::string_view store(std::string_view s);
  void grow_table();
  void reset() noexcept;

  std::vector<std::string_view> strings_;     // by label, into blocks_
  // Open addressing: hash << 32 | (label + 1), or 0 for an empty slot. The hash beside the
  // label spares a lookup that misses (most, in a trace of unique ids) a read of the string.
  std::vector<std::uint64_t> slots_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* free_ = nullptr;  // the unused tail of the last block
  std::size_t free_size_ = 0;
};

}  // namespace schedlab::workload
