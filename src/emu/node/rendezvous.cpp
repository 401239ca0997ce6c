// The gang's barrier over TCP: rank 0 serves, the others connect (see rendezvous.h). What each
// line means is decided by the barrier's rules (barrier.h); this file carries the lines.
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

#include "emu/node/barrier.h"

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
};
using ConnectionPtr = std::shared_ptr<Connection>;

std::string describe(const boost::system::error_code& ec) {
  if (ec == asio::error::eof) return "connection closed";
  if (ec == asio::error::not_found) return fmt::format("a line longer than {} bytes", kMaxRendezvousLine);
  return ec.message();
}

}  // namespace

struct Rendezvous::Impl {
  Impl(RendezvousConfig c, std::function<void()> notify)
      : cfg(std::move(c)), on_change(std::move(notify)), retry(io), resolver(io), force_close(io) {
    BarrierIdentity id{cfg.world_size, cfg.emulation, cfg.job_id, cfg.plan, cfg.announce};
    if (cfg.rank == 0 || cfg.world_size <= 1)
      host.emplace(std::move(id));
    else
      member.emplace(std::move(id), cfg.rank, fmt::format("{}:{}", cfg.address, cfg.port));
  }

  RendezvousConfig cfg;
  std::function<void()> on_change;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  std::thread thread;

  // Io thread only.
  std::set<ConnectionPtr> conns;
  std::optional<tcp::acceptor> acceptor;  // rank 0
  std::vector<ConnectionPtr> by_rank;     // rank 0: registered ranks
  ConnectionPtr to_zero;                  // ranks > 0
  std::shared_ptr<tcp::socket> connecting;
  asio::steady_timer retry;
  tcp::resolver resolver;
  std::chrono::steady_clock::time_point give_up;
  std::chrono::milliseconds next_retry = kFirstRetry;
  bool left = false;
  bool closing = false;
  asio::steady_timer force_close;

  // Shared with the worker's thread: the barrier's rules and what they know, changed on the
  // io thread (and by stop()) and read by the worker's, under `m`.
  mutable std::mutex m;
  std::optional<BarrierHost> host;      // rank 0, and a gang of one
  std::optional<BarrierMember> member;  // ranks > 0
  std::uint16_t port = 0;

  bool serving() const { return cfg.rank == 0; }

  const BarrierState& state() const { return host ? host->state() : member->state(); }

  // Runs one rule under the lock, then does what it says (io thread).
  template <class Rule>
  void step(Rule&& rule, const ConnectionPtr& from = nullptr) {
    BarrierStep s;
    {
      std::lock_guard lock(m);
      s = rule();
    }
    apply(s, from);
  }

  void apply(const BarrierStep& s, const ConnectionPtr& from) {
    for (const auto& [rank, line] : s.sends)
      if (by_rank[rank]) send(by_rank[rank], line);
    if (s.refused && from) {
      send(from, "refused " + *s.refused);
      from->close_after_writes = true;
    }
    if (s.broke) spread_broken(*s.broke);
    if (s.changed) notify();
  }

  BarrierStep fail(std::string why) { return host ? host->fail(std::move(why)) : member->fail(std::move(why)); }

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
      if (c->rank > 0) step([&] { return host->closed(static_cast<std::uint32_t>(c->rank), describe(ec)); });
    } else if (!left) {
      set_broken(fmt::format("lost the connection to rank 0 at {}:{} ({})", cfg.address, cfg.port, describe(ec)));
    }
  }

  void set_broken(std::string why) {
    step([&] { return fail(std::move(why)); });
  }

  // The gang broke just now (the rules said so once).
  void spread_broken(const std::string& why) {
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
      {
        std::lock_guard lock(m);
        host->fail(fmt::format("cannot listen on {}:{} ({})", cfg.address, cfg.port, e.code().message()));
      }
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

  void on_line_from_rank(const ConnectionPtr& c, const std::string& line) {
    if (c->rank < 0) {
      std::optional<std::uint32_t> rank;
      BarrierStep s;
      {
        std::lock_guard lock(m);
        s = host->hello(line, &rank);
      }
      if (rank) {
        c->rank = *rank;
        by_rank[*rank] = c;
      }
      return apply(s, c);
    }
    step([&] { return host->line(static_cast<std::uint32_t>(c->rank), line); }, c);
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
    return state().broken.has_value();
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
    send(to_zero, member->hello_line());
    read_next(to_zero);
  }

  void on_line_from_zero(const std::string& line) {
    step([&] { return member->line(line); });
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
  if (d.cfg.world_size <= 1) return;  // the rules release its rounds at once
  if (d.serving()) {
    d.start_serving();
    if (d.state().broken) return;
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
        d.fail(fmt::format("rendezvous failed: {}", e.what()));
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
  return impl_->state().started;
}

std::string Rendezvous::announce() const {
  std::lock_guard lock(impl_->m);
  return impl_->state().announce;
}

std::int64_t Rendezvous::released() const {
  std::lock_guard lock(impl_->m);
  return impl_->state().released;
}

bool Rendezvous::stopping() const {
  std::lock_guard lock(impl_->m);
  return impl_->state().stopping;
}

std::optional<std::string> Rendezvous::broken() const {
  std::lock_guard lock(impl_->m);
  return impl_->state().broken;
}

void Rendezvous::arrive(std::uint64_t round) {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1) {
    std::lock_guard lock(d.m);
    d.host->arrive(0, round);  // released at once: nobody to tell
    return;
  }
  if (!d.thread.joinable()) return;  // broken before it began
  if (d.serving())
    asio::post(d.io, [&d, round] { d.step([&] { return d.host->arrive(0, round); }); });
  else
    asio::post(d.io, [&d, round] {
      if (d.to_zero) d.send(d.to_zero, BarrierMember::arrive_line(round));
    });
}

void Rendezvous::stop() {
  Impl& d = *impl_;
  if (d.cfg.world_size <= 1 || !d.thread.joinable()) {
    std::lock_guard lock(d.m);
    if (d.host)
      d.host->stop_from(0);  // nobody registered: nobody to tell
    else
      d.member->stop();
    return;
  }
  if (d.serving()) {
    asio::post(d.io, [&d] { d.step([&] { return d.host->stop_from(0); }); });
    return;
  }
  {
    std::lock_guard lock(d.m);
    d.member->stop();
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
