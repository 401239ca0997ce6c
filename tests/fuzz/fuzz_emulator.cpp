// Fuzz targets of what the emulator's controller reads besides the agents' wire (fuzz_protocol):
// the API's request targets and bodies (emu/controller/api.h) and the journal `emulate --resume` replays
// (emu/controller/journal.h). Whatever either accepts must survive the journal's round trip: the inputs
// a controller applied are read back by the resumed one as they were.
#include <string>
#include <string_view>

#include "config/cluster_config.h"
#include "emu/controller/api.h"
#include "emu/controller/journal.h"
#include "emu/net/http_server.h"
#include "emu/net/request_target.h"
#include "fuzz_targets.h"
#include "util/error.h"
#include "workload/job_limit.h"
#include "workload/long_running.h"

namespace schedlab::fuzz {
namespace {

using nlohmann::json;

// The shipped GPU catalog (the API checks a job's models against the cluster's).
const cluster::GpuCatalog& catalog() {
  static const cluster::GpuCatalog c = config::load_catalog(sandbox_root() + "/configs/gpus.yaml");
  return c;
}

// An input as the journal writes it must read back as the same input.
void journal_round_trip(const emu::OutsideInput& input, const char* what) {
  const json written = emu::input_to_json(input);
  // Through the text, as on disk.
  const json reread = json::parse(emu::dump_json(written));
  emu::OutsideInput back;
  try {
    back = emu::input_from_json(reread, "journal.jsonl", 2);
  } catch (const util::InputError& e) {
    throw InvariantError(std::string(what) + ": the journal refuses what it wrote: " + e.what() + "\n" +
                         emu::dump_json(written));
  }
  expect(back.index() == input.index(), std::string(what) + ": read back as another kind of input");
  expect(emu::input_to_json(back) == written, std::string(what) + ": changed by the journal's round trip: " +
                                                  emu::dump_json(written) + " -> " +
                                                  emu::dump_json(emu::input_to_json(back)));
}

void check_refusal(const emu::ProtocolError& e, const char* what) {
  expect(e.http_status >= 400 && e.http_status < 500 && !e.message.empty(),
         std::string(what) + ": refused with status " + std::to_string(e.http_status) + " and '" + e.message + "'");
}

}  // namespace

// The first line is a request target ("/v1/jobs?limit=5"), the rest a request body; the body
// is parsed as each API route that takes one parses it.
int fuzz_api_body(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto nl = text.find('\n');
  const std::string_view target = text.substr(0, nl);
  const std::string_view body = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);

  std::string path;
  std::map<std::string, std::string> query;
  emu::split_target(target, path, query);
  expect(path.find('?') == std::string::npos, "the path keeps a query: " + path);
  for (const unsigned char c : emu::log_safe(path)) expect(c >= 0x20 && c < 0x7f, "log_safe left a raw byte");
  const auto limit = emu::parse_limit(query);
  if (limit)
    expect(limit.value() >= 1 && limit.value() <= 100000, "limit " + std::to_string(limit.value()));
  else
    check_refusal(limit.error(), "limit");

  const auto job = emu::parse_submit_body(body, catalog());
  if (job) {
    const auto& j = job.value();
    expect(j.spec.tasks >= 1 && j.spec.tasks <= (1u << 16), "tasks " + std::to_string(j.spec.tasks));
    expect(j.spec.gpus_per_task >= 1 && j.spec.gpus_per_task <= 1024,
           "gpus_per_task " + std::to_string(j.spec.gpus_per_task));
    expect(j.spec.duration >= 1, "duration " + std::to_string(j.spec.duration) + " us");
    expect(j.name.size() <= 256 && j.user.size() <= 256, "a name or user longer than 256");
    journal_round_trip(emu::SubmitInput{j}, "POST /v1/jobs");
  } else {
    check_refusal(job.error(), "POST /v1/jobs");
  }

  const auto scale = emu::parse_scale_body(body);
  if (scale) {
    expect(scale.value() <= workload::kMaxJobsPerRun, "instances " + std::to_string(scale.value()));
    journal_round_trip(emu::ScaleInput{"web", scale.value()}, "POST /v1/services/web/scale");
  } else {
    check_refusal(scale.error(), "POST /v1/services/web/scale");
  }
  return 0;
}

// A journal file as `emulate --resume` reads it: its instants in order, and every input in it
// written again and read back the same.
int fuzz_journal(const std::uint8_t* data, std::size_t size) {
  const std::string path = write_input("in/journal.jsonl", data, size);
  try {
    const emu::Journal j = emu::read_journal(path);
    expect(!j.options.is_null(), "a journal without the header's options");
    engine::Time last = std::numeric_limits<engine::Time>::min();
    for (const auto& b : j.batches) {
      expect(b.at >= last, "instant " + std::to_string(b.at) + " after " + std::to_string(last));
      last = b.at;
      for (const auto& in : b.inputs) journal_round_trip(in, "a journaled input");
    }
    if (j.anchor) expect(j.anchor->unix_us >= 0, "a clock anchor before 1970");
  } catch (const util::InputError& e) {
    expect(e.file() == path, std::string("the error names another file: ") + e.what());
  }
  return 0;
}

}  // namespace schedlab::fuzz
