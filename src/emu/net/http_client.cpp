// The synchronous HTTP client: Beast's asynchronous operations run on a private io_context
// until done or until the request's deadline, so a silent server cannot block an agent.
#include "emu/net/http_client.h"

#include <fmt/format.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>

#include "emu/net/http_server.h"
#include "emu/protocol.h"

namespace schedlab::emu {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

const char* transport_error_name(TransportError e) {
  switch (e) {
    case TransportError::none:
      return "none";
    case TransportError::refused:
      return "connection refused";
    case TransportError::timeout:
      return "timed out";
    case TransportError::failed:
      return "failed";
  }
  return "?";
}

std::string HttpResult::describe() const {
  if (error != TransportError::none) return fmt::format("{}: {}", transport_error_name(error), error_message);
  std::string why = error_message_of(body);
  if (why.empty()) why = body.substr(0, 200);
  return fmt::format("HTTP {}{}{}", status, why.empty() ? "" : ": ", log_safe(why, 300));
}

struct HttpClient::Impl {
  std::string host;
  std::uint16_t port;
  std::string token;
  std::size_t max_response_bytes;
  net::io_context ioc;
  std::optional<beast::tcp_stream> stream;
  beast::flat_buffer buffer;

  using Clock = std::chrono::steady_clock;

  // Runs the operations started on `ioc` until they finish.
  void run() {
    ioc.restart();
    ioc.run();
  }

  static HttpResult failure(beast::error_code ec, const char* during) {
    HttpResult r;
    if (ec == beast::error::timeout || ec == net::error::timed_out)
      r.error = TransportError::timeout;
    else if (ec == net::error::connection_refused)
      r.error = TransportError::refused;
    else
      r.error = TransportError::failed;
    r.error_message = fmt::format("{} ({})", during, ec.message());
    return r;
  }

  // Opens the connection; returns an error result, or nothing when connected.
  std::optional<HttpResult> connect(Clock::time_point deadline) {
    stream.emplace(ioc);
    buffer.clear();
    beast::error_code ec;
    std::vector<tcp::endpoint> endpoints;
    const auto address = net::ip::make_address(host, ec);
    if (!ec) {
      endpoints.emplace_back(address, port);
    } else {
      // A name: resolved asynchronously so that the deadline holds for a slow resolver too.
      tcp::resolver resolver(ioc);
      net::steady_timer timer(ioc, deadline);
      bool timed_out = false;
      timer.async_wait([&](beast::error_code e) {
        if (!e) {
          timed_out = true;
          resolver.cancel();
        }
      });
      resolver.async_resolve(host, std::to_string(port), [&](beast::error_code e, tcp::resolver::results_type results) {
        timer.cancel();
        ec = e;
        for (const auto& entry : results) endpoints.push_back(entry.endpoint());
      });
      run();
      if (timed_out) ec = beast::error::timeout;
      if (ec || endpoints.empty()) {
        stream.reset();
        return failure(ec ? ec : net::error::host_not_found, "resolving the host name");
      }
    }
    stream->expires_at(deadline);
    stream->async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    run();
    if (ec) {
      stream.reset();
      return failure(ec, "connecting");
    }
    stream->socket().set_option(tcp::no_delay(true), ec);
    return std::nullopt;
  }

  void close() {
    if (!stream) return;
    beast::error_code ec;
    stream->socket().shutdown(tcp::socket::shutdown_both, ec);
    stream->close();
    stream.reset();
    buffer.clear();
  }
};

HttpClient::HttpClient(std::string host, std::uint16_t port, std::string token, std::size_t max_response_bytes)
    : impl_(std::make_unique<Impl>()) {
  impl_->host = std::move(host);
  impl_->port = port;
  impl_->token = std::move(token);
  impl_->max_response_bytes = max_response_bytes;
}

HttpClient::~HttpClient() { impl_->close(); }

void HttpClient::close() { impl_->close(); }

HttpResult HttpClient::request(std::string_view method, std::string_view target, std::string_view body,
                               std::chrono::milliseconds timeout) {
  auto& c = *impl_;
  const auto deadline = Impl::Clock::now() + timeout;
  http::request<http::string_body> req;
  req.version(11);
  req.method_string(beast::string_view(method.data(), method.size()));
  req.target(beast::string_view(target.data(), target.size()));
  req.set(http::field::host, fmt::format("{}:{}", c.host, c.port));
  req.set(http::field::user_agent, "schedlab");
  if (!c.token.empty()) req.set(http::field::authorization, "Bearer " + c.token);
  if (!body.empty()) req.set(http::field::content_type, "application/json");
  req.body() = std::string(body);
  req.keep_alive(true);
  req.prepare_payload();

  for (int attempt = 0;; ++attempt) {
    const bool reused = c.stream.has_value();
    if (!reused)
      if (auto err = c.connect(deadline)) return *err;
    beast::error_code ec;
    c.stream->expires_at(deadline);
    http::async_write(*c.stream, req, [&](beast::error_code e, std::size_t) { ec = e; });
    c.run();
    // A kept-alive connection the server closed meanwhile fails here or in the read with
    // nothing received: the server never saw the request, so it is sent again, once.
    const bool may_retry = reused && attempt == 0 && Impl::Clock::now() < deadline;
    if (ec) {
      c.close();
      if (may_retry && ec != beast::error::timeout) continue;
      return Impl::failure(ec, "sending the request");
    }
    http::response_parser<http::string_body> parser;
    parser.body_limit(c.max_response_bytes);
    http::async_read(*c.stream, c.buffer, parser, [&](beast::error_code e, std::size_t) { ec = e; });
    c.run();
    if (ec) {
      const bool nothing = !parser.got_some();
      c.close();
      if (may_retry && nothing && ec != beast::error::timeout) continue;
      return Impl::failure(ec, "reading the answer");
    }
    auto res = parser.release();
    if (!res.keep_alive()) c.close();
    HttpResult r;
    r.status = static_cast<int>(res.result_int());
    r.body = std::move(res.body());
    return r;
  }
}

}  // namespace schedlab::emu
