// An HTTP/1.1 server for the emulator's controller (and the tests' fake controllers), on
// Boost.Beast: it owns the sockets, the limits and the token check, and hands every accepted
// request to one handler that the owner writes. The handler answers through a Responder, at
// once or later from any thread, which is how the controller holds agents' polls open (long
// polling). Whatever a client sends, the server answers or drops that one connection and
// keeps serving; every refused request (status >= 400) is logged in one line.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace schedlab::emu {

struct HttpRequest {
  std::string method;                        // "GET", "POST", ... as sent
  std::string target;                        // the path, without the query (not percent-decoded)
  std::map<std::string, std::string> query;  // ?a=1&b=x%20y -> {a: 1, b: "x y"} (decoded)
  std::string body;
  std::string remote;  // "127.0.0.1:53412"
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones (Allow, WWW-Authenticate)
};

namespace detail {
struct ResponderState;
}

// The one answer to one request. Copyable; the first call sends the response, later calls
// are ignored. It may be called on any thread, now or later. If every copy is dropped without
// a call, the server answers 500, so a request can never hang because a handler forgot it.
// Once the server is stopped, calls do nothing.
class Responder {
 public:
  explicit Responder(std::shared_ptr<detail::ResponderState> state) : state_(std::move(state)) {}
  void operator()(HttpResponse response) const;
  // Whether some copy has been called.
  bool answered() const;

 private:
  std::shared_ptr<detail::ResponderState> state_;
};

using HttpHandler = std::function<void(const HttpRequest&, Responder)>;
using LogFunction = std::function<void(const std::string& line)>;

struct HttpServerOptions {
  std::string address = "127.0.0.1";  // "0.0.0.0" or "::" for every interface
  std::uint16_t port = 0;              // 0: an ephemeral port (see HttpServer::port())
  // When not empty, every request must carry `Authorization: Bearer <token>`; others get 401
  // before the handler sees them.
  std::string token;
  // Paths (without the query) that a GET may fetch without the token: a static page that holds
  // nothing secret and reads the rest with the token itself (the controller's live page).
  std::vector<std::string> open_paths;
  std::size_t max_body_bytes = 1 << 20;  // 413 beyond
  std::size_t max_header_bytes = 8 << 10;  // 431 beyond
  // The time a client has to send one whole request (and to take one response); a silent or
  // slow client is dropped after it. Idle keep-alive connections are closed after it too.
  std::chrono::milliseconds read_timeout{30000};
  std::size_t max_connections = 512;  // further connections are answered 503 and closed
  int threads = 1;                    // io threads
};

class HttpServer {
 public:
  // `log` receives one line per refused request (default: standard error).
  HttpServer(HttpServerOptions options, HttpHandler handler, LogFunction log = {});
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts the io threads. Throws EnvironmentError when the address cannot be bound.
  void start();
  // Closes the listener and every connection, and joins the io threads. Idempotent. Must not
  // be called from inside the handler (an io thread). Responders held past it do nothing.
  void stop();
  // The bound port (after start()).
  std::uint16_t port() const { return port_; }
  // Connections open now (for tests and metrics).
  std::size_t open_connections() const;

  struct Core;  // implementation (http_server.cpp)

 private:
  std::shared_ptr<Core> core_;
  std::uint16_t port_ = 0;
};

// A string safe for a one-line log: control and non-ASCII bytes as \xNN, at most `max` bytes.
std::string log_safe(std::string_view s, std::size_t max = 160);

}  // namespace schedlab::emu
