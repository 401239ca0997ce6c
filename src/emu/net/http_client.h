// A small synchronous HTTP/1.1 client on Boost.Beast, for node agents and tests: one
// keep-alive connection to one server, the bearer token on every request, a deadline per
// request, and a reconnect when a kept-alive connection turns out to be broken. Network
// failures are values (HttpResult::error), never exceptions: an agent treats a refused
// connection and a timeout as "the controller is lost" and carries on.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace schedlab::emu {

enum class TransportError {
  none,
  refused,  // nobody listens at the address
  timeout,  // no complete answer before the deadline
  failed,   // anything else: reset, unresolvable name, malformed or oversized answer
};
const char* transport_error_name(TransportError e);

struct HttpResult {
  TransportError error = TransportError::none;
  std::string error_message;  // what went wrong, when error != none
  int status = 0;             // when error == none
  std::string body;

  // The request reached the server and an answer came back (whatever its status).
  bool answered() const { return error == TransportError::none; }
  // An answer with a 2xx status.
  bool success() const { return answered() && status >= 200 && status < 300; }
  // "HTTP 409: ..." or "connection refused: ..." for log lines.
  std::string describe() const;
};

class HttpClient {
 public:
  // `host` is a name or an IP address; `token`, when not empty, is sent as a bearer token.
  HttpClient(std::string host, std::uint16_t port, std::string token = "",
             std::size_t max_response_bytes = 64u << 20);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request (a JSON body when `body` is not empty) and waits for the answer until
  // `timeout` has passed. A kept-alive connection that the server has closed meanwhile is
  // replaced and the request sent once more, which is safe because the server never saw it
  // (nothing came back).
  HttpResult request(std::string_view method, std::string_view target, std::string_view body,
                     std::chrono::milliseconds timeout);
  // Closes the kept-alive connection (the next request opens a new one).
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedlab::emu
