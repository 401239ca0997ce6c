// Notices: what a user should know that is not an error (the timeline was coarsened, rows
// were reshaped by a documented rule, the perf model fell back to datasheet figures). Each
// goes to standard error as `schedlab: notice: ...`, and each distinct text only once per
// process: a compare's variants read the same trace and would otherwise say it once each.
// `--quiet` silences them all.
#pragma once

#include <string>

namespace schedlab {

void notice(const std::string& text);
void set_notices_quiet(bool quiet);

}  // namespace schedlab
