// Spelling help for error messages: the closest valid name to a typo, and "valid: a, b, c".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace schedlab::util {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is plausibly a typo of it, else empty.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

// "unknown 'bestfit'; did you mean 'best-fit'? valid: first-fit, best-fit"
std::string unknown_name_message(std::string_view kind, std::string_view word,
                                 const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& items, std::string_view sep);

}  // namespace schedlab::util
