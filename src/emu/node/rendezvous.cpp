// The gang's barrier over TCP: rank 0 serves, the others connect (see rendezvous.h).
#include "emu/node/rendezvous.h"

#include <fmt/format.h>

#include <utility>  // before Boost.Asio 1.74, whose awaitable.hpp uses std::exchange without it
#include <boost/asio.hpp>
#include <algorithm>
#include <deque>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>
#include <vector>

#include "util/parse.h"

namespace schedlab::emu {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kMaxRendezvousLine = 1024;
// Ranks usually start within milliseconds of rank 0: retry soon, then back off.
constexpr auto kFirstRetry = std::chrono::milliseconds(2);
constexpr auto kMaxRetry = std::chrono::milliseconds(100);
constexpr auto kCloseWithin = std::chrono::seconds(1);

// One TCP connection: a line reader and a queue of lines to send. Used on the io thread only.
struct Connection {
  explicit Connection(tcp::socket s) : socket(std::move(s)), in(kMaxRendezvousLine) {}
  tcp::socket socket;
  asio::streambuf in;
  std::deque<std::string> out;
  bool writing = false;
  bool open = true;
  bool close_after_writes = false;
  std::int64_t rank = -1;  // rank 0's view: the rank that said hello, -1 before
  bool left = false;
};
using ConnectionPtr = std::shared_ptr<Connection>;

std::string describe(const boost::system::error_code& ec) {
  if (ec == asio::error::eof) return "connection closed";
  if (ec == asio::error::not_found) return fmt::format("a line longer than {} bytes", kMaxRendezvousLine);
  return ec.message();
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  split_fields(line, ' ', out);
  return out;
}

// A line quoted for a message: printable, and short.
std::string shown(std::string_view line, std::size_t max = 80) {
  std::string s;
  for (char c : line.substr(0, max)) s += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (line.size() > max) s += "...";
  return s;
}

std::optional<std::uint64_t> round_number(std::string_view text) {
  std::int64_t v = 0;
  if (!try_parse_int(text, v) || v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

}  // namespace

struct Rendezvous::Impl {
  Impl(RendezvousConfig c, std::function<void()> notify)
      : cfg(std::move(c)), on_change(std::move(notify)), retry(io), resolver(io), force_close(io) {}

  RendezvousConfig cfg;
  std::function<void()> on_change;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;

  // Io thread only.
  std::set<ConnectionPtr> conns;
  std::optional<tcp::acceptor> acceptor;  // rank 0
  std::vector<ConnectionPtr> by_rank;     // rank 0: registered ranks
  std::vector<std::int64_t> last_round;   // rank 0: the last round each rank arrived at
  std::uint32_t joined = 0, arrived = 0;  // rank 0
  ConnectionPtr to_zero;                  // ranks > 0
  std::shared_ptr<tcp::socket> connecting;
  asio::steady_timer retry;
  tcp::resolver resolver;
  std::chrono::steady_clock::time_point give_up;
  std::chrono::milliseconds next_retry = kFirstRetry;
  bool left = false;
  bool closing = false;
  asio::steady_timer force_close;

  // Shared with the worker's thread.
  mutable std::mutex m;
  bool started = false;
  std::string announce;
  std::int64_t released = -1;
  bool stopping = false;
  std::optional<std::string> broken;
  std::uint16_t port = 0;

  bool serving() const { return cfg.rank == 0; }

  void notify() {
    if (on_change) on_change();
  }

  // ---- connections --------------------------------------------------------------------------

  void read_next(const ConnectionPtr& c) {
    asio::async_read_until(c->socket, c->in, '\n', [this, c](const boost::system::error_code& ec, std::size_t n) {
      if (!c->open) return;
      if (ec) return on_closed(c, ec);
      std::string line(asio::buffers_begin(c->in.data()), asio::buffers_begin(c->in.data()) + (n - 1));
      c->in.consume(n);
      if (closing || c->close_after_writes) {
        read_next(c);  // draining until the peer closes
        return;
      }
      if (serving())
        on_line_from_rank(c, line);
      else
        on_line_from_zero(line);
      if (c->open) read_next(c);
    });
  }

  void send(const ConnectionPtr& c, std::string line) {
    if (!c->open) return;
    c->out.push_back(std::move(line) + "\n");
    if (!c->writing) write_next(c);
  }

  void write_next(const ConnectionPtr& c) {
    c->writing = true;
    asio::async_write(c->socket, asio::buffer(c->out.front()), [this, c](const boost::system::error_code& ec, std::size_t) {
      c->writing = false;
      if (!c->open) return;
      if (ec) return on_closed(c, ec);
      c->out.pop_front();
      if (!c->out.empty())
        write_next(c);
      else if (c->close_after_writes)
        close_gracefully(c);
    });
  }

  // Sends FIN and reads until the peer closes too, so that nothing it sent last turns our
  // close into a reset that could discard the lines we sent last.
  void close_gracefully(const ConnectionPtr& c) {
    boost::system::error_code ignored;
    c->socket.shutdown(tcp::socket::shutdown_send, ignored);
  }

  void close_connection(const ConnectionPtr& c) {
    if (!c->open) return;
    c->open = false;
    boost::system::error_code ignored;
    c->socket.shutdown(tcp::socket::shutdown_both, ignored);
    c->socket.close(ignored);
    conns.erase(c);
    if (closing && conns.empty()) force_close.cancel();
  }

  void on_closed(const ConnectionPtr& c, const boost::system::error_code& ec) {
    const bool was_open = c->open;
    close_connection(c);
    if (!was_open || closing) return;
    if (serving()) {
      if (c->rank > 0 && !c->left) set_broken(fmt::format("rank {} disconnected ({})", c->rank, describe(ec)));
    } else if (!left) {
      set_broken(fmt::format("lost the connection to rank 0 at {}:{} ({})", cfg.address, cfg.port, describe(ec)));
    }
  }

  void set_broken(const std::string& why) {
    {
      std::lock_guard lock(m);
      if (broken) return;
      broken = why;
    }
    if (serving()) {
      // The other ranks learn why before their connections close.
      boost::system::error_code ignored;
      if (acceptor) acceptor->close(ignored);
      for (const auto& c : std::vector<ConnectionPtr>(conns.begin(), conns.end())) {
        if (c->rank > 0 && c->open) {
          send(c, "broken " + why);
          c->close_after_writes = true;
        } else {
          close_connection(c);
        }
      }
    } else {
      close_everything();
    }
    notify();
  }

  void close_everything() {
    boost::system::error_code ignored;
    if (acceptor) acceptor->close(ignored);
    retry.cancel();
    resolver.cancel();
    if (connecting) connecting->close(ignored);
    for (const auto& c : std::vector<ConnectionPtr>(conns.begin(), conns.end())) close_connection(c);
  }

  // ---- rank 0 ---------------------------------------------------------------------------------

  void start_serving() {
    by_rank.assign(cfg.world_size, nullptr);
    last_round.assign(cfg.world_size, -1);
    try {
      tcp::resolver r(io);
      auto endpoints = r.resolve(cfg.address, std::to_string(cfg.port));
      if (endpoints.empty()) throw boost::system::system_error(asio::error::host_not_found);
      const tcp::endpoint ep = *endpoints.begin();
      acceptor.emplace(io);
      acceptor->open(ep.protocol());
      // A gang restarted on the same port must not wait for the last one's TIME_WAIT.
      acceptor->set_option(tcp::acceptor::reuse_address(true));
      acceptor->bind(ep);
      acceptor->listen();
      port = acceptor->local_endpoint().port();
    } catch (const boost::system::system_error& e) {
      broken = fmt::format("cannot listen on {}:{} ({})", cfg.address, cfg.port, e.code().message());
      acceptor.reset();
      return;
    }
    accept_next();
  }

  void accept_next() {
    acceptor->async_accept([this](const boost::system::error_code& ec, tcp::socket s) {
      if (closing || !acceptor->is_open()) return;
      if (!ec) {
        // Ranks hold one connection each; a flood of strangers is not let in beyond that.
        if (conns.size() < 2 * static_cast<std::size_t>(cfg.world_size) + 16) {
          auto c = std::make_shared<Connection>(std::move(s));
          boost::system::error_code ignored;
          c->socket.set_option(tcp::no_delay(true), ignored);
          conns.insert(c);
          read_next(c);
        }
      }
      accept_next();
    });
  }

  void refuse(const ConnectionPtr& c, const std::string& why) {
    send(c, "refused " + why);
    c->close_after_writes = true;
  }

  void on_line_from_rank(const ConnectionPtr& c, const std::string& line) {
    const auto w = words(line);
    if (c->rank < 0) {
      if (w.size() != 6 || w[0] != "hello")
        return refuse(c, fmt::format("expected 'hello EMU JOB WORLD RANK PLAN', got '{}'", shown(line)));
      // First, and saying nothing of ours: a stranger learns neither identity nor job.
      if (w[1] != cfg.emulation)
        return refuse(c, "this rank 0 serves another emulation (SCHEDLAB_EMULATION_ID differs)");
      if (w[2] != cfg.job_id) return refuse(c, fmt::format("this is job {}, not {}", cfg.job_id, shown(w[2])));
      std::int64_t world = 0, rank = 0;
      if (!try_parse_int(w[3], world) || world != cfg.world_size)
        return refuse(c, fmt::format("the gang has {} ranks, not {}", cfg.world_size, shown(w[3])));
      if (!try_parse_int(w[4], rank) || rank < 1 || rank >= world)
        return refuse(c, fmt::format("rank {} is not one of 1 to {}", shown(w[4]), cfg.world_size - 1));
      if (w[5] != cfg.plan) return refuse(c, fmt::format("rank 0's plan is {}, not {}", cfg.plan, shown(w[5])));
      if (by_rank[rank]) return refuse(c, fmt::format("rank {} has already joined", rank));
      c->rank = rank;
      by_rank[rank] = c;
      if (++joined == cfg.world_size - 1) {
        {
          std::lock_guard lock(m);
          started = true;
          announce = cfg.announce;
        }
        for (const auto& r : by_rank)
          if (r) send(r, "start " + cfg.announce);
        notify();
      }
      return;
    }
    if (w.size() == 2 && w[0] == "arrive") {
      if (auto n = round_number(w[1])) return on_arrival(static_cast<std::uint32_t>(c->rank), *n);
    } else if (w.size() == 1 && w[0] == "leave") {
      c->left = true;
      return;
    } else if (w.size() == 1 && w[0] == "stop") {
      c->left = true;
      return on_stop_from(static_cast<std::uint32_t>(c->rank));
    }
    set_broken(fmt::format("rank {} broke the protocol: '{}'", c->rank, shown(line)));
  }

  void on_arrival(std::uint32_t rank, std::uint64_t round) {
    std::int64_t next;
    bool is_started;
    {
      std::lock_guard lock(m);
      next = released + 1;
      is_started = started;
    }
    if (!is_started || static_cast<std::int64_t>(round) != next || last_round[rank] >= next)
      return set_broken(fmt::format("rank {} arrived at round {} while the gang is at round {}", rank, round, next));
    last_round[rank] = next;
    if (++arrived < cfg.world_size) return;
    arrived = 0;
    {
      std::lock_guard lock(m);
      released = next;
    }
    for (const auto& r : by_rank)
      if (r && !r->left) send(r, fmt::format("go {}", next));
    notify();
  }

  // Rank `from` stops gracefully: every other rank is told once.
  void on_stop_from(std::uint32_t from) {
    {
      std::lock_guard lock(m);
      if (stopping) return;
      stopping = true;
    }
    for (const auto& r : by_rank)
      if (r && r->rank != static_cast<std::int64_t>(from) && !r->left) send(r, "stop");
    notify();
  }

  // ---- ranks > 0 ------------------------------------------------------------------------------

  void start_connecting() {
    give_up = std::chrono::steady_clock::now() + cfg.connect_timeout;
    try_connect();
  }

  void try_connect() {
    resolver.async_resolve(cfg.address, std::to_string(cfg.port),
                           [this](const boost::system::error_code& ec, const tcp::resolver::results_type& results) {
                             if (closing || broken_now()) return;
                             if (ec) return retry_or_give_up(ec);
                             connecting = std::make_shared<tcp::socket>(io);
                             asio::async_connect(*connecting, results,
                                                 [this, s = connecting](const boost::system::error_code& e, const tcp::endpoint&) {
                                                   if (closing || broken_now()) return;
                                                   if (e) return retry_or_give_up(e);
                                                   connected(std::move(*s));
                                                 });
                           });
  }

  bool broken_now() const {
    std::lock_guard lock(m);
    return broken.has_value();
  }

  void retry_or_give_up(const boost::system::error_code& ec) {
    if (std::chrono::steady_clock::now() >= give_up)
      return set_broken(fmt::format("cannot reach rank 0 at {}:{} within {:.3g} s ({})", cfg.address, cfg.port,
                                    std::chrono::duration<double>(cfg.connect_timeout).count(), ec.message()));
    retry.expires_after(next_retry);
    next_retry = std::min(next_retry * 2, kMaxRetry);
    retry.async_wait([this](const boost::system::error_code& e) {
      if (!e && !closing && !broken_now()) try_connect();
    });
  }

  void connected(tcp::socket s) {
    connecting.reset();
    to_zero = std::make_shared<Connection>(std::move(s));
    boost::system::error_code ignored;
    to_zero->socket.set_option(tcp::no_delay(true), ignored);
    conns.insert(to_zero);
    send(to_zero, fmt::format("hello {} {} {} {} {}", cfg.emulation, cfg.job_id, cfg.world_size, cfg.rank, cfg.plan));
    read_next(to_zero);
  }

  void on_line_from_zero(const std::string& line) {
    const std::string_view v(line);
    if (v.substr(0, 6) == "start ") {
      bool fresh;
      {
        std::lock_guard lock(m);
        fresh = !started;
        started = true;
        announce = std::string(v.substr(6));
      }
      if (fresh) return notify();
    } else if (v.substr(0, 3) == "go ") {
      auto n = round_number(v.substr(3));
      bool ok;
      {
        std::lock_guard lock(m);
        ok = n && started && static_cast<std::int64_t>(*n) == released + 1;
        if (ok) released = static_cast<std::int64_t>(*n);
      }
      if (ok) return notify();
    } else if (v == "stop") {
      bool fresh;
      {
        std::lock_guard lock(m);
        fresh = !stopping;
        stopping = true;
      }
      if (fresh) notify();
      return;
    } else if (v.substr(0, 7) == "broken ") {
      return set_broken(fmt::format("rank 0 reports: {}", shown(v.substr(7), 300)));
    } else if (v.substr(0, 8) == "refused ") {
      return set_broken(fmt::format("rank 0 at {}:{} refused this rank: {}", cfg.address, cfg.port, shown(v.substr(8))));
    }
    set_broken(fmt::format("rank 0 broke the protocol: '{}'", shown(line)));
  }

  // ---- shutting down --------------------------------------------------------------------------

  void begin_close() {
    closing = true;
    boost::system::error_code ignored;
    if (acceptor) acceptor->close(ignored);
    retry.cancel();
    resolver.cancel();
    if (connecting) connecting->close(ignored);
    for (const auto& c : std::vector<ConnectionPtr>(conns.begin(), conns.end())) {
      if (c->writing || !c->out.empty())
        c->close_after_writes = true;
      else
        close_gracefully(c);
    }
    if (conns.empty()) return;
    force_close.expires_after(kCloseWithin);
    force_close.async_wait([this](const boost::system::error_code& e) {
      if (e) return;
      for (const auto& c : std::vector<ConnectionPtr>(conns.begin(), conns.end())) close_connection(c);
    });
  }
};

Rendezvous::Rendezvous(RendezvousConfig config, std::function<void()> on_change)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(on_change))) {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1) {
    d.started = true;
    d.announce = d.cfg.announce;
    return;
  }
  if (d.serving()) {
    d.start_serving();
    if (d.broken) return;
  } else {
    d.start_connecting();
  }
  d.guard.emplace(d.io.get_executor());
  d.thread = std::thread([&d] {
    try {
      d.io.run();
    } catch (const std::exception& e) {
      {
        std::lock_guard lock(d.m);
        if (!d.broken) d.broken = fmt::format("rendezvous failed: {}", e.what());
      }
      d.notify();
    }
  });
}

Rendezvous::~Rendezvous() {
  Impl& d = *impl_;
  if (!d.thread.joinable()) return;
  asio::post(d.io, [&d] { d.begin_close(); });
  d.guard.reset();
  d.thread.join();
}

std::uint16_t Rendezvous::port() const {
  std::lock_guard lock(impl_->m);
  return impl_->port;
}

bool Rendezvous::started() const {
  std::lock_guard lock(impl_->m);
  return impl_->started;
}

std::string Rendezvous::announce() const {
  std::lock_guard lock(impl_->m);
  return impl_->announce;
}

std::int64_t Rendezvous::released() const {
  std::lock_guard lock(impl_->m);
  return impl_->released;
}

bool Rendezvous::stopping() const {
  std::lock_guard lock(impl_->m);
  return impl_->stopping;
}

std::optional<std::string> Rendezvous::broken() const {
  std::lock_guard lock(impl_->m);
  return impl_->broken;
}

void Rendezvous::arrive(std::uint64_t round) {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1) {
    std::lock_guard lock(d.m);
    if (static_cast<std::int64_t>(round) == d.released + 1) d.released = static_cast<std::int64_t>(round);
    return;
  }
  if (!d.thread.joinable()) return;  // broken before it began
  if (d.serving())
    asio::post(d.io, [&d, round] { d.on_arrival(0, round); });
  else
    asio::post(d.io, [&d, round] {
      if (d.to_zero) d.send(d.to_zero, fmt::format("arrive {}", round));
    });
}

void Rendezvous::stop() {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1 || !d.thread.joinable()) {
    std::lock_guard lock(d.m);
    d.stopping = true;
    return;
  }
  if (d.serving()) {
    asio::post(d.io, [&d] { d.on_stop_from(0); });
    return;
  }
  {
    std::lock_guard lock(d.m);
    d.stopping = true;
  }
  asio::post(d.io, [&d] {
    d.left = true;
    if (d.to_zero) d.send(d.to_zero, "stop");
  });
}

void Rendezvous::leave() {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1 || !d.thread.joinable() || d.serving()) return;
  asio::post(d.io, [&d] {
    d.left = true;
    if (d.to_zero) d.send(d.to_zero, "leave");
  });
}

}  // namespace schedlab::emu
