// The journal's lines: written with one write(2) each, synced in batches, read back for --resume.
#include "emu/controller/journal.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "emu/json_fields.h"
#include "util/error.h"
#include "util/json_read.h"
#include "util/line_reader.h"
#include "workload/job_limit.h"
#include "workload/long_running.h"

namespace schedlab::emu {

namespace {
using nlohmann::json;
constexpr auto kSyncEvery = std::chrono::milliseconds(200);

json submitted_to_json(const sim::SubmittedJob& j) {
  return {{"tasks", j.spec.tasks},       {"gpus_per_task", j.spec.gpus_per_task}, {"duration_us", j.spec.duration},
          {"priority", j.spec.priority}, {"name", j.name},                        {"user", j.user},
          {"model", j.model}};
}

sim::SubmittedJob submitted_from(const FieldReader& r) {
  sim::SubmittedJob j;
  j.spec.tasks = static_cast<std::uint32_t>(r.uint("tasks", 1u << 16));
  j.spec.gpus_per_task = static_cast<std::uint32_t>(r.uint("gpus_per_task", 1024));
  j.spec.duration = r.integer("duration_us", 1, engine::kTimeMax);
  j.spec.priority = static_cast<std::int32_t>(r.integer("priority", -1000000000, 1000000000));
  j.name = r.string("name");
  j.user = r.string("user");
  j.model = r.string("model");
  return j;
}

cluster::HostId host_from(const FieldReader& r, std::string_view key) {
  return static_cast<cluster::HostId>(r.uint(key, std::numeric_limits<cluster::HostId>::max()));
}

// Runs `read` on a journal line's object; a ProtocolException becomes path:line: field: what.
template <class Read>
auto read_line(const json& j, const std::string& path, long line, Read&& read) {
  try {
    return read(FieldReader(j, ""));
  } catch (const ProtocolException& e) {
    const auto& m = e.error.message;
    const auto colon = m.find(": ");
    if (colon == std::string::npos) throw util::InputError(path, line, "journal", m);
    throw util::InputError(path, line, m.substr(0, colon), m.substr(colon + 2));
  }
}
}  // namespace

json input_to_json(const OutsideInput& input) {
  return std::visit(
      [](const auto& in) -> json {
        using T = std::decay_t<decltype(in)>;
        if constexpr (std::is_same_v<T, ReportInput>) return {{"host", in.host}, {"report", to_json(in.report)}};
        if constexpr (std::is_same_v<T, HostLostInput>) return {{"lost", in.host}};
        if constexpr (std::is_same_v<T, HostBackInput>) return {{"back", in.host}};
        if constexpr (std::is_same_v<T, SubmitInput>) return {{"submit", submitted_to_json(in.job)}};
        if constexpr (std::is_same_v<T, KillInput>) return {{"kill", in.job}};
        if constexpr (std::is_same_v<T, ScaleInput>)
          return {{"scale", {{"service", in.service}, {"instances", in.instances}}}};
      },
      input);
}

OutsideInput input_from_json(const json& j, const std::string& path, long line) {
  return read_line(j, path, line, [](const FieldReader& r) -> OutsideInput {
    if (r.has("report")) return ReportInput{host_from(r, "host"), read_task_report(r.object("report"))};
    if (r.has("lost")) return HostLostInput{host_from(r, "lost")};
    if (r.has("back")) return HostBackInput{host_from(r, "back")};
    if (r.has("submit")) return SubmitInput{submitted_from(r.object("submit"))};
    if (r.has("kill")) return KillInput{static_cast<workload::JobId>(r.uint("kill", ~workload::JobId{0}))};
    if (r.has("scale")) {
      const auto s = r.object("scale");
      return ScaleInput{s.string("service"), static_cast<std::uint32_t>(s.uint("instances", workload::kMaxJobsPerRun))};
    }
    FieldReader::fail(r.path().empty() ? "in" : r.path(), "expected one of report, lost, back, submit, kill, scale");
  });
}

// --- writing ---------------------------------------------------------------------------------

// Lines are written by the loop; this thread syncs them. A failed sync is kept and thrown in
// the loop's thread at its next write, as a failed write would be.
class JournalWriter::Syncer {
 public:
  Syncer(int fd, std::chrono::milliseconds every) : fd_(fd), every_(every), thread_([this] { run(); }) {}
  ~Syncer() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void wrote() {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  // The caller's thread: everything written so far, durable now.
  void sync_now() {
    std::lock_guard lock(mu_);
    dirty_ = false;
    if (::fdatasync(fd_) != 0 && error_.empty()) error_ = std::strerror(errno);
  }
  // The first sync that failed ("" when none has).
  std::string error() const {
    std::lock_guard lock(mu_);
    return error_;
  }

 private:
  void run() {
    std::unique_lock lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, every_, [&] { return stop_; });
      if (!dirty_) continue;
      dirty_ = false;
      // Lines written meanwhile mark it dirty again; the loop never waits for this.
      lock.unlock();
      const bool ok = ::fdatasync(fd_) == 0;
      const int err = errno;
      lock.lock();
      if (!ok && error_.empty()) error_ = std::strerror(err);
    }
    if (dirty_ && ::fdatasync(fd_) != 0 && error_.empty()) error_ = std::strerror(errno);
  }

  const int fd_;
  const std::chrono::milliseconds every_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = false;
  bool stop_ = false;
  std::string error_;
  std::thread thread_;  // last: it starts once the rest is set
};

JournalWriter::JournalWriter(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), syncer_(std::make_unique<Syncer>(fd, kSyncEvery)) {}

JournalWriter::JournalWriter(JournalWriter&& o) noexcept
    : fd_(o.fd_), path_(std::move(o.path_)), pending_(std::move(o.pending_)), syncer_(std::move(o.syncer_)) {
  o.fd_ = -1;
}

JournalWriter::~JournalWriter() {
  if (fd_ < 0) return;
  syncer_.reset();  // its last sync included
  ::close(fd_);
}

JournalWriter JournalWriter::create(const std::string& path, const json& options) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw util::EnvironmentError(fmt::format("cannot create the journal {}: {}", path, std::strerror(errno)));
  JournalWriter w(fd, path);
  w.write_line({{"schedlab_journal", kJournalVersion}, {"emulate", options}});
  w.sync();
  return w;
}

JournalWriter JournalWriter::append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw util::EnvironmentError(fmt::format("cannot open the journal {}: {}", path, std::strerror(errno)));
  // A line cut short by the crash would glue itself to the next one: end it first (the
  // reader then refuses nothing, it skips the one broken line).
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const auto size = static_cast<std::streamoff>(in.tellg());
  JournalWriter w(fd, path);
  if (size > 0) {
    in.seekg(size - 1);
    if (in.get() != '\n' && ::write(fd, "\n", 1) != 1)
      throw util::EnvironmentError(fmt::format("cannot write the journal {}: {}", path, std::strerror(errno)));
  }
  return w;
}

void JournalWriter::write_line(const json& j) {
  std::string line = dump_json(j);
  line += '\n';
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw util::EnvironmentError(fmt::format("cannot write the journal {}: {}", path_, std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  syncer_->wrote();
  if (auto e = syncer_->error(); !e.empty())
    throw util::EnvironmentError(fmt::format("cannot sync the journal {}: {}", path_, e));
}

void JournalWriter::clock_started(const ClockAnchor& a) {
  write_line({{"clock", {{"origin_us", a.origin}, {"unix_us", a.unix_us}}}});
  sync();
}

void JournalWriter::record(const OutsideInput& input) { pending_.push_back(input_to_json(input)); }

void JournalWriter::end_batch(engine::Time at) {
  if (pending_.empty()) return;
  write_line({{"at", at}, {"in", std::move(pending_)}});
  pending_ = json::array();
}

void JournalWriter::sync() {
  syncer_->sync_now();
  if (auto e = syncer_->error(); !e.empty())
    throw util::EnvironmentError(fmt::format("cannot sync the journal {}: {}", path_, e));
}

// --- reading ---------------------------------------------------------------------------------

Journal read_journal(const std::string& path) {
  if (!std::ifstream(path, std::ios::binary))
    throw util::InputError(path, 0, "journal", "cannot be read (is this an emulation's work folder?)");
  // Lines through the one line reader: a line past kMaxLineBytes is refused, not held.
  util::LineReader reader(path);
  Journal out;
  long line = 0;
  engine::Time last = std::numeric_limits<engine::Time>::min();
  std::string_view s;
  while (reader.next(s)) {
    if (reader.last_line_unterminated()) break;  // cut short by a crash: never applied for sure
    line = reader.line_number();
    if (s.empty()) continue;
    json j;
    try {
      j = util::parse_json(s);
    } catch (const util::JsonReadError& e) {
      // Nothing schedlab writes nests that deep: not a line a crash cut short.
      if (e.too_deep()) throw util::InputError(path, line, "journal", e.what());
      j = json();  // not JSON: handled below with a line that is not an object
    }
    if (!j.is_object()) {
      // A line a crash cut short, then ended by the resumed writer: nothing in it was applied
      // for sure (it had not been written whole when the loop went on).
      if (line > 1) continue;
      throw util::InputError(path, line, "journal", "not a JSON object");
    }
    if (line == 1) {
      read_line(j, path, line, [&](const FieldReader& r) {
        if (r.uint("schedlab_journal") != kJournalVersion)
          FieldReader::fail("schedlab_journal", fmt::format("version {} is not {}, the version this schedlab reads",
                                                            r.uint("schedlab_journal"), kJournalVersion));
        out.options = r.object("emulate").raw();
        return 0;
      });
      continue;
    }
    read_line(j, path, line, [&](const FieldReader& r) {
      if (r.has("clock")) {
        const auto c = r.object("clock");
        out.anchor = ClockAnchor{c.integer("origin_us", -engine::kTimeMax, engine::kTimeMax),
                                 c.integer("unix_us", 0, std::numeric_limits<std::int64_t>::max())};
        return 0;
      }
      JournalBatch b;
      b.at = r.integer("at", -engine::kTimeMax, engine::kTimeMax);
      if (b.at < last) FieldReader::fail("at", fmt::format("{} is earlier than the line before ({})", b.at, last));
      last = b.at;
      const auto& inputs = r.array("in");
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        if (!inputs[i].is_object())
          FieldReader::fail(FieldReader::element_path("in", i), "expected an object");
        b.inputs.push_back(input_from_json(inputs[i], path, line));
      }
      out.batches.push_back(std::move(b));
      return 0;
    });
  }
  if (out.options.is_null())
    throw util::InputError(path, 1, "journal", "no header: the emulation wrote nothing to resume from");
  return out;
}

}  // namespace schedlab::emu
