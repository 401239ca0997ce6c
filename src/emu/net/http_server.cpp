// The HTTP server on Boost.Beast: an accept loop, one session per connection (each on its own
// strand), the token check, the limits, and deferred answers through Responder.
#include "emu/net/http_server.h"
#include "emu/net/request_target.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "emu/protocol.h"
#include "util/error.h"

namespace schedlab::emu {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

namespace detail {
class HttpSession;
}
using detail::HttpSession;

namespace {
// Bytes read and thrown away after an error answer, before the connection is closed, so the
// client reads the answer instead of a reset (the "lingering close" of other servers).
constexpr std::size_t kLingerBytes = 4 << 20;
constexpr auto kLingerTime = std::chrono::seconds(2);
}  // namespace

struct HttpServer::Core {
  HttpServerOptions opt;
  HttpHandler handler;
  LogFunction log;
  net::io_context ioc;
  net::strand<net::io_context::executor_type> accept_strand{net::make_strand(ioc)};
  tcp::acceptor acceptor{accept_strand};
  net::steady_timer accept_retry{accept_strand};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::vector<std::thread> threads;

  // Guards `stopped` against answers posted from other threads while stop() drains, and the
  // session table.
  std::mutex mu;
  std::atomic<bool> stopped{false};
  std::unordered_map<std::uint64_t, std::weak_ptr<HttpSession>> sessions;
  std::uint64_t next_session = 0;
  std::atomic<std::size_t> open{0};
  std::condition_variable threads_cv;
  int threads_done = 0;

  void write_log(const std::string& line) {
    try {
      if (log)
        log(line);
      else
        fmt::print(stderr, "{}\n", line);
    } catch (...) {  // a failing log callback must not take the io thread down
    }
  }
  void do_accept(const std::shared_ptr<Core>& self);
  void on_accept(const std::shared_ptr<Core>& self, beast::error_code ec, tcp::socket socket);
};

namespace detail {
struct ResponderState {
  std::shared_ptr<HttpSession> session;  // held: the connection waits for its answer
  std::atomic<bool> answered{false};
  ~ResponderState();
};
}  // namespace detail

namespace {

// True when `a` equals `b`, in time that does not depend on where they differ.
bool same_secret(std::string_view a, std::string_view b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool authorized(std::string_view header, const std::string& token) {
  constexpr std::string_view scheme = "bearer ";
  if (header.size() < scheme.size()) return false;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return false;
  header.remove_prefix(scheme.size());
  while (!header.empty() && header.front() == ' ') header.remove_prefix(1);
  while (!header.empty() && (header.back() == ' ' || header.back() == '\t')) header.remove_suffix(1);
  return same_secret(header, token);
}

// Whether the request may skip the token: a GET of one of `open` (the query aside).
bool open_path(std::string_view method, std::string_view target, const std::vector<std::string>& open) {
  if (method != "GET") return false;
  const std::string_view path = target.substr(0, target.find('?'));
  return std::find(open.begin(), open.end(), path) != open.end();
}

HttpResponse error_answer(int status, std::string_view message) {
  return HttpResponse{status, dump_json(error_json(message)), "application/json", {}};
}

std::string_view std_view(boost::beast::string_view s) { return {s.data(), s.size()}; }

}  // namespace

// Named (not anonymous) because the server's Core, declared in the header, holds sessions.
namespace detail {

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(std::shared_ptr<HttpServer::Core> core, tcp::socket&& socket, std::uint64_t id)
      : core_(std::move(core)), stream_(std::move(socket)), id_(id) {
    core_->open.fetch_add(1);
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    remote_ = ec ? std::string("?") : fmt::format("{}:{}", ep.address().to_string(), ep.port());
  }
  ~HttpSession() {
    core_->open.fetch_sub(1);
    std::lock_guard lock(core_->mu);
    core_->sessions.erase(id_);
  }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }
  // Refuses the connection (too many open) with 503 and closes it.
  void refuse_overloaded() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->method_ = "-";
      self->target_ = "-";
      self->send(error_answer(503, fmt::format("too many connections (limit {})", self->core_->opt.max_connections)),
                 /*keep_alive=*/false);
    });
  }
  // From stop(): ends whatever the connection is doing.
  void shut() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }
  // From a Responder, on any thread.
  void answer(HttpResponse response) {
    std::lock_guard lock(core_->mu);
    if (core_->stopped) return;
    net::post(stream_.get_executor(), [self = shared_from_this(), r = std::move(response)]() mutable {
      self->send(std::move(r), self->keep_alive_);
    });
  }

 private:
  bool stopping() const { return core_->stopped.load(); }

  void read_header() {
    if (stopping()) return close();
    method_.clear();
    target_.clear();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(core_->opt.max_header_bytes));
    parser_->body_limit(core_->opt.max_body_bytes);
    stream_.expires_after(core_->opt.read_timeout);
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& req = parser_->get();
    method_ = std::string(std_view(req.method_string()));
    target_ = std::string(std_view(req.target()));
    keep_alive_ = req.keep_alive();
    if (req.version() != 10 && req.version() != 11)
      return send(error_answer(400, fmt::format("HTTP/{}.{} is not supported; this server speaks HTTP/1.1",
                                                req.version() / 10, req.version() % 10)),
                  false);
    if (!core_->opt.token.empty() && !open_path(method_, target_, core_->opt.open_paths) &&
        !authorized(std_view(req[http::field::authorization]), core_->opt.token)) {
      HttpResponse r = error_answer(401, "missing or wrong bearer token (Authorization: Bearer <token>)");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return send(std::move(r), /*keep_alive=*/false);  // the body, if any, is left unread
    }
    const auto expect = req[http::field::expect];
    if (!parser_->is_done() && beast::iequals(expect, "100-continue")) {
      // curl waits for this before sending a body over 1 KiB.
      continue_.emplace(http::status::continue_, req.version());
      http::async_write(stream_, *continue_, [self = shared_from_this()](beast::error_code ec2, std::size_t) {
        if (ec2) return self->close();
        self->read_body();
      });
      return;
    }
    read_body();
  }

  void read_body() {
    if (parser_->is_done()) return dispatch_request();
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->on_read_error(ec);
      self->dispatch_request();
    });
  }

  void on_read_error(beast::error_code ec) {
    if (method_.empty() && parser_) {
      // The request line may have been read before the error (a Content-Length beyond the
      // limit is found at the end of the header): name it in the log line.
      method_ = std::string(std_view(parser_->get().method_string()));
      target_ = std::string(std_view(parser_->get().target()));
    }
    if (method_.empty()) method_ = "-";
    if (target_.empty()) target_ = "-";
    if (ec == http::error::body_limit)
      return send(error_answer(413, fmt::format("request body larger than {} bytes", core_->opt.max_body_bytes)),
                  false);
    if (ec == http::error::header_limit)
      return send(error_answer(431, fmt::format("request header larger than {} bytes", core_->opt.max_header_bytes)),
                  false);
    if (ec.category() == http::make_error_code(http::error::end_of_stream).category() && ec != http::error::end_of_stream &&
        ec != http::error::partial_message) {
      return send(error_answer(400, "malformed HTTP request: " + ec.message()), false);
    }
    if (ec == beast::error::timeout && parser_ && parser_->got_some())
      core_->write_log(fmt::format("{} dropped: request not complete within {} ms", remote_,
                                   core_->opt.read_timeout.count()));
    close();  // end of stream, reset, timeout, or stop()
  }

  void dispatch_request() {
    stream_.expires_never();  // the handler may hold the request (a long poll)
    auto& req = parser_->get();
    HttpRequest r;
    r.method = method_;
    split_target(target_, r.target, r.query);
    r.body = std::move(req.body());
    r.remote = remote_;
    auto state = std::make_shared<detail::ResponderState>();
    state->session = shared_from_this();
    Responder responder(state);
    state.reset();
    try {
      core_->handler(r, responder);
    } catch (const std::exception& e) {
      responder(error_answer(500, fmt::format("internal error: {}", e.what())));
    } catch (...) {
      responder(error_answer(500, "internal error"));
    }
  }

  void send(HttpResponse r, bool keep_alive) {
    if (stopping()) return close();
    if (r.status >= 400) {
      std::string why = error_message_of(r.body);
      core_->write_log(fmt::format("{} {} {} -> {}{}{}", remote_, log_safe(method_, 16), log_safe(target_), r.status,
                                   why.empty() ? "" : ": ", log_safe(why, 300)));
    }
    res_ = {};
    res_.version(11);
    res_.result(static_cast<unsigned>(r.status));
    res_.set(http::field::server, "schedlab");
    res_.set(http::field::content_type, r.content_type);
    for (auto& [name, value] : r.headers) res_.set(name, value);
    res_.body() = std::move(r.body);
    res_.keep_alive(keep_alive);
    res_.prepare_payload();
    const bool error_close = !keep_alive && r.status >= 400;
    stream_.expires_after(core_->opt.read_timeout);
    http::async_write(stream_, res_, [self = shared_from_this(), keep_alive, error_close](beast::error_code ec,
                                                                                           std::size_t) {
      if (ec) return self->close();
      if (error_close) return self->linger();
      if (!keep_alive) return self->close();
      self->read_header();
    });
  }

  // After an error answer: stop sending, read (and drop) what the client still sends for a
  // moment, then close, so that the client sees the answer rather than a connection reset.
  void linger() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
    if (ec) return close();
    linger_left_ = kLingerBytes;
    stream_.expires_after(kLingerTime);
    linger_read();
  }
  void linger_read() {
    if (stopping()) return close();
    stream_.async_read_some(net::buffer(scratch_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
      if (ec || n >= self->linger_left_) return self->close();
      self->linger_left_ -= n;
      self->linger_read();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

  std::shared_ptr<HttpServer::Core> core_;  // first member: the io_context outlives the socket
  beast::tcp_stream stream_;
  std::uint64_t id_;
  std::string remote_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::optional<http::response<http::empty_body>> continue_;
  http::response<http::string_body> res_;
  std::string method_, target_;
  bool keep_alive_ = false;
  std::size_t linger_left_ = 0;
  std::array<char, 16384> scratch_{};
};

}  // namespace detail

detail::ResponderState::~ResponderState() {
  if (!answered.exchange(true)) session->answer(error_answer(500, "the handler did not answer"));
}

void Responder::operator()(HttpResponse response) const {
  if (state_->answered.exchange(true)) return;
  state_->session->answer(std::move(response));
}

bool Responder::answered() const { return state_->answered.load(); }

void HttpServer::Core::do_accept(const std::shared_ptr<Core>& self) {
  acceptor.async_accept(net::make_strand(ioc), [self](beast::error_code ec, tcp::socket socket) {
    self->on_accept(self, ec, std::move(socket));
  });
}

void HttpServer::Core::on_accept(const std::shared_ptr<Core>& self, beast::error_code ec, tcp::socket socket) {
  if (stopped) return;
  if (ec) {
    if (ec == net::error::operation_aborted) return;
    // Out of file descriptors and the like: wait a moment rather than spin.
    write_log(fmt::format("accept failed: {}; retrying", ec.message()));
    accept_retry.expires_after(std::chrono::milliseconds(100));
    accept_retry.async_wait([self](beast::error_code e) {
      if (!e && !self->stopped) self->do_accept(self);
    });
    return;
  }
  const bool overloaded = open.load() >= opt.max_connections;
  std::shared_ptr<HttpSession> session;
  {
    std::lock_guard lock(mu);
    if (stopped) return;
    const std::uint64_t id = next_session++;
    session = std::make_shared<HttpSession>(self, std::move(socket), id);
    sessions.emplace(id, session);
  }
  if (overloaded)
    session->refuse_overloaded();
  else
    session->start();
  do_accept(self);
}

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler, LogFunction log)
    : core_(std::make_shared<Core>()) {
  core_->opt = std::move(options);
  core_->handler = std::move(handler);
  core_->log = std::move(log);
  if (core_->opt.threads < 1) core_->opt.threads = 1;
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
  auto& c = *core_;
  beast::error_code ec;
  const auto address = net::ip::make_address(c.opt.address, ec);
  if (ec) throw util::InputError(fmt::format("'{}' is not an IP address ({})", c.opt.address, ec.message()));
  const tcp::endpoint endpoint(address, c.opt.port);
  auto fail = [&](const char* what) {
    throw util::EnvironmentError(
        fmt::format("cannot listen on {}:{}: {} ({})", c.opt.address, c.opt.port, what, ec.message()));
  };
  c.acceptor.open(endpoint.protocol(), ec);
  if (ec) fail("open");
  // A restarted controller binds the port again at once, whatever the old connections' state.
  c.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) fail("set_option");
  c.acceptor.bind(endpoint, ec);
  if (ec) fail("bind");
  c.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) fail("listen");
  port_ = c.acceptor.local_endpoint().port();
  c.work.emplace(c.ioc.get_executor());
  net::dispatch(c.accept_strand, [core = core_] { core->do_accept(core); });
  for (int i = 0; i < c.opt.threads; ++i) {
    c.threads.emplace_back([core = core_.get()] {
      for (;;) {
        try {
          core->ioc.run();
          break;
        } catch (const std::exception& e) {  // a bug, not a client: log it, keep serving
          core->write_log(fmt::format("internal error in the HTTP server: {}", e.what()));
        } catch (...) {
          core->write_log("internal error in the HTTP server");
        }
      }
      std::lock_guard lock(core->mu);
      ++core->threads_done;
      core->threads_cv.notify_all();
    });
  }
}

void HttpServer::stop() {
  if (!core_) return;
  auto& c = *core_;
  std::vector<std::shared_ptr<HttpSession>> live;
  {
    std::lock_guard lock(c.mu);
    if (c.stopped) return;
    c.stopped = true;
    for (auto& [id, weak] : c.sessions)
      if (auto s = weak.lock()) live.push_back(std::move(s));
  }
  if (c.threads.empty()) return;  // never started
  net::dispatch(c.accept_strand, [core = core_] {
    beast::error_code ec;
    core->acceptor.close(ec);
    core->accept_retry.cancel();
  });
  for (auto& s : live) s->shut();
  live.clear();
  c.work.reset();
  {
    // Every operation has been cancelled, so the threads run out of work; a handler stuck in
    // the owner's code is the only way past this wait, and then the loop is stopped outright.
    std::unique_lock lock(c.mu);
    c.threads_cv.wait_for(lock, std::chrono::seconds(5),
                          [&] { return c.threads_done == static_cast<int>(c.threads.size()); });
  }
  c.ioc.stop();
  for (auto& t : c.threads) t.join();
  c.threads.clear();
  // Handlers posted before `stopped` was set but not yet run hold sessions (and so this core):
  // run them now, against closed sockets, so nothing is left holding anything.
  c.ioc.restart();
  while (c.ioc.poll() > 0) {
  }
}

std::size_t HttpServer::open_connections() const { return core_->open.load(); }

}  // namespace schedlab::emu
