// Fuzz target of the emulator's wire (emu/protocol.h): one body, parsed as every message the
// controller and the agents read. A body that parses must encode back to a body that parses
// to the same message (what one side writes, the other reads as written).
#include <string_view>

#include "emu/protocol.h"
#include "fuzz_targets.h"

namespace schedlab::fuzz {

namespace {
template <class T, class Parse>
void round_trip(std::string_view body, Parse parse, const char* what) {
  const auto first = parse(body);
  if (!first) {
    if (first.error().http_status < 400 || first.error().message.empty())
      throw InvariantError(std::string(what) + ": a refusal without a status or a reason");
    return;
  }
  const std::string again = emu::dump_json(emu::to_json(first.value()));
  const auto second = parse(again);
  if (!second) throw InvariantError(std::string(what) + ": its own encoding is refused: " + second.error().message);
  if (!(second.value() == first.value())) throw InvariantError(std::string(what) + ": changed by a round trip");
}
}  // namespace

int fuzz_protocol(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  round_trip<emu::RegisterRequest>(body, emu::parse_register_request, "register request");
  round_trip<emu::RegisterResponse>(body, emu::parse_register_response, "register response");
  round_trip<emu::PollRequest>(body, emu::parse_poll_request, "poll request");
  round_trip<emu::PollResponse>(body, emu::parse_poll_response, "poll response");
  round_trip<emu::ReportRequest>(body, emu::parse_report_request, "report request");
  (void)emu::parse_ok_response(body);
  (void)emu::error_message_of(body);
  return 0;
}

}  // namespace schedlab::fuzz
