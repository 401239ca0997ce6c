// Inputs from outside: posted from any thread, journaled and applied in the loop's thread.
#include "emu/controller/inbox.h"

#include "emu/controller/emu_executor.h"
#include "emu/controller/journal.h"

namespace schedlab::emu {

InputOutcome apply_input(const OutsideInput& input, engine::Time now, EmuExecutor& executor,
                         sim::OutsideEvents& outside) {
  InputOutcome out;
  std::visit(
      [&](const auto& in) {
        using T = std::decay_t<decltype(in)>;
        if constexpr (std::is_same_v<T, ReportInput>) {
          executor.on_report(in.host, in.report, now, outside);
        } else if constexpr (std::is_same_v<T, HostLostInput>) {
          executor.on_host_lost(in.host);
          outside.host_lost(in.host, now);
        } else if constexpr (std::is_same_v<T, HostBackInput>) {
          outside.host_back(in.host, now);
        } else if constexpr (std::is_same_v<T, SubmitInput>) {
          if (auto why = outside.never_runs(in.job)) {
            out.refused = *why;
          } else {
            out.job = outside.submit(in.job, now);
            out.found = true;
          }
        } else if constexpr (std::is_same_v<T, KillInput>) {
          out.job = in.job;
          out.found = outside.kill(in.job, now);
        } else {
          static_assert(std::is_same_v<T, ScaleInput>);
          const auto scaled = outside.scale_service(in.service, in.instances, now);
          out.found = scaled.has_value();
          if (scaled) out.scaled = *scaled;
        }
      },
      input);
  return out;
}

void Inbox::post(OutsideInput input, Then then) {
  clock_.post([this, input = std::move(input), then = std::move(then)](engine::Time now, sim::OutsideEvents& outside) {
    if (journal_) journal_->record(input);
    const InputOutcome out = apply_input(input, now, executor_, outside);
    if (then) then(out, now);
  });
}

}  // namespace schedlab::emu
