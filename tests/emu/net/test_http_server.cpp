// The HTTP server, router and client: limits, the token, deferred answers, and a server that
// keeps serving whatever arrives on its port.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "emu/net/http_client.h"
#include "emu/net/http_server.h"
#include "emu/net/request_target.h"
#include "emu/net/router.h"

namespace schedlab::emu::http_test {

namespace {

using namespace std::chrono_literals;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Log lines of a server, kept for checks.
struct LogLines {
  std::mutex mu;
  std::vector<std::string> lines;
  LogFunction function() {
    return [this](const std::string& line) {
      std::lock_guard lock(mu);
      lines.push_back(line);
    };
  }
  bool any_contains(const std::string& text) {
    std::lock_guard lock(mu);
    for (const auto& l : lines)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
  bool eventually_contains(const std::string& text) {
    for (int i = 0; i < 200; ++i) {
      if (any_contains(text)) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }
  std::size_t size() {
    std::lock_guard lock(mu);
    return lines.size();
  }
};

// Answers 200 with "METHOD TARGET BODY" and the query's `q`.
void echo(const HttpRequest& req, Responder respond) {
  std::string q = req.query.count("q") ? req.query.at("q") : "";
  respond(HttpResponse{200, req.method + " " + req.target + " " + req.body + (q.empty() ? "" : " q=" + q), "text/plain", {}});
}

// Sends `bytes` on a fresh connection, then reads until the server closes it or `limit`
// passes; returns what came back.
std::string raw_exchange(std::uint16_t port, const std::string& bytes, std::chrono::milliseconds limit = 2000ms,
                         bool half_close = false) {
  boost::asio::io_context ioc;
  tcp::socket s(ioc);
  s.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  timeval tv{static_cast<time_t>(limit.count() / 1000), static_cast<suseconds_t>((limit.count() % 1000) * 1000)};
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  boost::system::error_code ec;
  if (!bytes.empty()) boost::asio::write(s, boost::asio::buffer(bytes), ec);
  if (half_close) s.shutdown(tcp::socket::shutdown_send, ec);
  std::string out;
  char buf[4096];
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    const std::size_t n = s.read_some(boost::asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

struct Served {
  LogLines log;
  HttpServer server;
  Served(HttpServerOptions opt, HttpHandler handler) : server(std::move(opt), std::move(handler), log.function()) {
    server.start();
  }
  HttpClient client(const std::string& token = "") { return HttpClient("127.0.0.1", server.port(), token); }
};

}  // namespace

TEST_CASE("Emu.HttpServer.binds_an_ephemeral_loopback_port_and_serves_keep_alive") {
  std::vector<std::string> remotes;
  std::mutex mu;
  Served s({}, [&](const HttpRequest& req, Responder respond) {
    {
      std::lock_guard lock(mu);
      remotes.push_back(req.remote);
    }
    echo(req, std::move(respond));
  });
  REQUIRE(s.server.port() != 0);
  HttpClient c("127.0.0.1", s.server.port());
  for (int i = 0; i < 3; ++i) {
    HttpResult r = c.request("POST", "/v1/x?q=a%20b+c&z", "{}", 2000ms);
    REQUIRE_MESSAGE(r.success(), r.describe());
    CHECK(r.body == "POST /v1/x {} q=a b c");
  }
  // One connection served all three (kept alive): the same client port every time.
  std::lock_guard lock(mu);
  REQUIRE(remotes.size() == 3);
  CHECK(remotes[0].starts_with("127.0.0.1:"));
  CHECK(remotes[0] == remotes[2]);
  CHECK(s.log.size() == 0);  // nothing refused, nothing logged
}

TEST_CASE("Emu.HttpServer.a_token_is_required_before_any_handler_runs") {
  std::atomic<int> handled{0};
  HttpServerOptions opt;
  opt.token = "s3cret-token-0123456789";
  Served s(opt, [&](const HttpRequest& req, Responder respond) {
    ++handled;
    echo(req, std::move(respond));
  });
  HttpResult none = s.client().request("GET", "/v1/cluster", "", 2000ms);
  CHECK(none.status == 401);
  HttpResult wrong = s.client("s3cret-token-0123456788").request("GET", "/v1/cluster", "", 2000ms);
  CHECK(wrong.status == 401);
  CHECK(error_message_of(wrong.body).find("bearer token") != std::string::npos);
  CHECK(handled == 0);
  HttpResult right = s.client(opt.token).request("GET", "/v1/cluster", "", 2000ms);
  CHECK(right.status == 200);
  CHECK(handled == 1);
  CHECK(s.log.any_contains("GET /v1/cluster -> 401"));
  // The scheme is case-insensitive, the token is not.
  std::string reply = raw_exchange(s.server.port(),
                                   "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: bearer " + opt.token + "\r\nConnection: close\r\n\r\n");
  CHECK(reply.starts_with("HTTP/1.1 200"));
}

TEST_CASE("Emu.HttpServer.an_open_path_is_served_to_a_get_without_the_token_and_nothing_else_is") {
  HttpServerOptions opt;
  opt.token = "s3cret-token-0123456789";
  opt.open_paths = {"/"};
  Served s(opt, echo);
  CHECK(s.client().request("GET", "/", "", 2000ms).status == 200);
  CHECK(s.client().request("GET", "/?x=1", "", 2000ms).status == 200);  // the query aside
  CHECK(s.client().request("POST", "/", "{}", 2000ms).status == 401);   // a GET only
  CHECK(s.client().request("GET", "/metrics", "", 2000ms).status == 401);
  CHECK(s.client().request("GET", "/v1/cluster", "", 2000ms).status == 401);
  CHECK(s.client().request("GET", "//", "", 2000ms).status == 401);
  CHECK(s.client(opt.token).request("GET", "/metrics", "", 2000ms).status == 200);
}

TEST_CASE("Emu.HttpServer.an_oversized_body_is_refused_with_413_and_the_server_goes_on") {
  HttpServerOptions opt;
  opt.max_body_bytes = 1 << 20;
  std::atomic<int> handled{0};
  Served s(opt, [&](const HttpRequest& req, Responder respond) {
    ++handled;
    echo(req, std::move(respond));
  });
  HttpClient c = s.client();
  HttpResult big = c.request("POST", "/v1/jobs", std::string((1 << 20) + 1, 'x'), 5000ms);
  REQUIRE_MESSAGE(big.answered(), big.describe());
  CHECK(big.status == 413);
  CHECK(handled == 0);
  CHECK(s.log.any_contains("POST /v1/jobs -> 413: request body larger than 1048576 bytes"));
  HttpResult exact = c.request("POST", "/v1/jobs", std::string(1 << 20, 'y'), 5000ms);
  CHECK(exact.status == 200);
  // Announced by Content-Length alone: refused before the body is read.
  std::string reply = raw_exchange(s.server.port(), "POST /v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n");
  CHECK(reply.starts_with("HTTP/1.1 413"));
}

TEST_CASE("Emu.HttpServer.a_deferred_responder_is_answered_from_another_thread") {
  std::mutex mu;
  std::vector<Responder> held;
  Served s({}, [&](const HttpRequest&, Responder respond) {
    std::lock_guard lock(mu);
    held.push_back(std::move(respond));  // a long poll: answered later
  });
  std::thread later([&] {
    for (;;) {
      std::this_thread::sleep_for(20ms);
      std::lock_guard lock(mu);
      if (!held.empty()) break;
    }
    std::this_thread::sleep_for(200ms);
    std::lock_guard lock(mu);
    Responder copy = held[0];
    copy(HttpResponse{200, R"({"version":1,"commands":[]})", "application/json", {}});
    held[0](HttpResponse{500, "second answer ignored", "text/plain", {}});
    CHECK(held[0].answered());
  });
  const auto t0 = Clock::now();
  HttpResult r = s.client().request("POST", "/v1/agents/poll", "{}", 3000ms);
  later.join();
  CHECK(r.status == 200);
  CHECK(r.body == R"({"version":1,"commands":[]})");
  CHECK(Clock::now() - t0 >= 200ms);
}

TEST_CASE("Emu.HttpServer.a_dropped_responder_or_a_throwing_handler_gives_500") {
  Served s({}, [](const HttpRequest& req, Responder respond) {
    if (req.target == "/throw") throw std::runtime_error("boom");
    if (req.target == "/drop") return;  // forgets to answer
    echo(req, std::move(respond));
  });
  HttpClient c = s.client();
  HttpResult dropped = c.request("GET", "/drop", "", 2000ms);
  CHECK(dropped.status == 500);
  CHECK(error_message_of(dropped.body) == "the handler did not answer");
  HttpResult thrown = c.request("GET", "/throw", "", 2000ms);
  CHECK(thrown.status == 500);
  CHECK(error_message_of(thrown.body) == "internal error: boom");
  CHECK(c.request("GET", "/fine", "", 2000ms).status == 200);
  CHECK(s.log.any_contains("GET /throw -> 500: internal error: boom"));
}

TEST_CASE("Emu.Router.routes_by_method_and_pattern_with_404_and_405") {
  Router router;
  router.add("GET", "/v1/jobs", [](const HttpRequest&, const RouteParams&, Responder r) {
    r(json_response(200, {{"jobs", nlohmann::json::array()}}));
  });
  router.add("POST", "/v1/jobs/{id}/stop", [](const HttpRequest&, const RouteParams& p, Responder r) {
    r(json_response(200, {{"stopped", p.at("id")}}));
  });
  router.add("POST", "/v1/jobs", [](const HttpRequest& req, const RouteParams&, Responder r) {
    auto parsed = parse_ok_response(req.body);
    if (!parse_or_refuse(parsed, r)) return;
    r(json_response(201, nlohmann::json::object()));
  });
  Served s({}, router.handler());
  HttpClient c = s.client();
  HttpResult list = c.request("GET", "/v1/jobs", "", 2000ms);
  CHECK(list.status == 200);
  CHECK(list.body == R"({"jobs":[],"version":1})");
  HttpResult stop = c.request("POST", "/v1/jobs/42/stop", "{}", 2000ms);
  CHECK(stop.body == R"({"stopped":"42","version":1})");
  HttpResult missing = c.request("GET", "/v1/nothing", "", 2000ms);
  CHECK(missing.status == 404);
  CHECK(error_message_of(missing.body) == "no route /v1/nothing");
  CHECK(c.request("POST", "/v1/jobs//stop", "{}", 2000ms).status == 404);
  HttpResult wrong = c.request("DELETE", "/v1/jobs", "", 2000ms);
  CHECK(wrong.status == 405);
  CHECK(error_message_of(wrong.body) == "/v1/jobs does not take DELETE; allowed: GET, POST");
  HttpResult bad = c.request("POST", "/v1/jobs", "{\"version\":1", 2000ms);
  CHECK(bad.status == 400);
  CHECK(error_message_of(bad.body).starts_with("malformed JSON"));
  CHECK(c.request("POST", "/v1/jobs", R"({"version":9})", 2000ms).status == 426);
  CHECK(c.request("POST", "/v1/jobs", R"({"version":1})", 2000ms).status == 201);
  CHECK(s.log.any_contains("DELETE /v1/jobs -> 405"));
  CHECK(s.log.any_contains("POST /v1/jobs -> 426: version: 9 is not supported"));
}

TEST_CASE("Emu.HttpServer.garbage_truncated_and_silent_clients_never_stop_it") {
  HttpServerOptions opt;
  opt.read_timeout = 300ms;
  opt.max_connections = 8;
  Router router;
  router.add("POST", "/v1/agents/poll", [](const HttpRequest& req, const RouteParams&, Responder r) {
    auto parsed = parse_poll_request(req.body);
    if (!parse_or_refuse(parsed, r)) return;
    r(json_response(200, {{"commands", nlohmann::json::array()}}));
  });
  router.add("GET", "/ok", [](const HttpRequest&, const RouteParams&, Responder r) { r(json_response(200, {})); });
  Served s(opt, router.handler());
  const auto port = s.server.port();

  // Garbage bytes: a 400 and the connection closed.
  CHECK(raw_exchange(port, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n").starts_with("HTTP/1.1 400"));
  CHECK(raw_exchange(port, std::string(3000, '\0')).starts_with("HTTP/1.1 400"));
  CHECK(raw_exchange(port, "GET / HTTP/9.9\r\n\r\n").starts_with("HTTP/1.1 400"));
  CHECK(raw_exchange(port, "GET /ok HTTP/1.1\r\nContent-Length: -5\r\n\r\n").starts_with("HTTP/1.1 400"));
  CHECK(raw_exchange(port, "POST /ok HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").starts_with("HTTP/1.1 400"));
  // Truncated requests, then the client goes away: nothing to answer.
  CHECK(raw_exchange(port, "POST /v1/agents/poll HTTP/1.1\r\nContent-Le", 500ms, true).empty());
  CHECK(raw_exchange(port, "POST /v1/agents/poll HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"ver", 500ms, true).empty());
  // A header beyond the limit.
  CHECK(raw_exchange(port, "GET /ok HTTP/1.1\r\nX-Big: " + std::string(9000, 'a') + "\r\n\r\n").starts_with("HTTP/1.1 431"));
  // Wrong methods and unknown routes.
  CHECK(raw_exchange(port, "BREW /ok HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 405"));
  CHECK(raw_exchange(port, "GET /v1/agents/poll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 405"));
  CHECK(raw_exchange(port, "GET /%00%ff/../x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").starts_with("HTTP/1.1 404"));
  // Malformed and wrongly typed JSON.
  auto post = [&](const std::string& body) {
    return raw_exchange(port, "POST /v1/agents/poll HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
                                  std::to_string(body.size()) + "\r\n\r\n" + body);
  };
  CHECK(post("{\"version\":1,").starts_with("HTTP/1.1 400"));
  CHECK(post("[]").starts_with("HTTP/1.1 400"));
  CHECK(post(R"({"version":1,"agent_id":7,"host":"h","wait_ms":1,"reports":[]})").starts_with("HTTP/1.1 400"));
  CHECK(post(R"({"version":2})").starts_with("HTTP/1.1 426"));
  // A request never finished: the server drops it after its read timeout.
  const auto t0 = Clock::now();
  std::string silent = raw_exchange(port, "POST /v1/agents/poll HTTP/1.1\r\nContent-Length: 10\r\n\r\n{", 3000ms);
  CHECK(silent.empty());
  CHECK(Clock::now() - t0 < 2000ms);
  // (The connection is closed as the timeout fires; the log line follows a moment later.)
  CHECK(s.log.eventually_contains("dropped: request not complete within 300 ms"));
  // Pipelined requests on one connection: both answered, in order.
  std::string two = raw_exchange(port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(two.starts_with("HTTP/1.1 200"));
  CHECK(two.find("HTTP/1.1 404") != std::string::npos);
  // curl's Expect: 100-continue is answered before the body is sent.
  std::string cont = raw_exchange(port, "GET /ok HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n", 300ms);
  CHECK(cont.starts_with("HTTP/1.1 100 Continue"));

  // Random bytes, and valid requests with bytes flipped, cut short or repeated (seeded, so a
  // failure repeats): each is answered or dropped, and the server goes on.
  std::mt19937 rng(20240611);
  const std::string valid =
      "POST /v1/agents/poll HTTP/1.1\r\nHost: x\r\nContent-Length: 64\r\n\r\n"
      R"({"version":1,"agent_id":"a","host":"h","wait_ms":1,"reports":[]})";
  REQUIRE(raw_exchange(port, valid, 2000ms, true).starts_with("HTTP/1.1 200"));  // the base is valid
  for (int i = 0; i < 150; ++i) {
    std::string bytes;
    if (i < 50) {
      bytes.resize(rng() % 300);
      for (auto& c : bytes) c = static_cast<char>(rng());
    } else {
      bytes = valid;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      if (i % 3 == 0) bytes.resize(rng() % bytes.size());
      if (i % 7 == 0) bytes += bytes;
    }
    std::string reply = raw_exchange(port, bytes, 2000ms, /*half_close=*/true);
    CHECK_MESSAGE((reply.empty() || reply.starts_with("HTTP/1.1 ")), reply);
  }
  // Still serving: a good request works.
  HttpResult good = s.client().request("GET", "/ok", "", 2000ms);
  CHECK_MESSAGE(good.status == 200, good.describe());
  HttpResult poll = s.client().request("POST", "/v1/agents/poll",
                                       R"({"version":1,"agent_id":"a","host":"h","wait_ms":1,"reports":[]})", 2000ms);
  CHECK(poll.body == R"({"commands":[],"version":1})");

  // stop() returns promptly with a connection open mid-request.
  boost::asio::io_context ioc;
  tcp::socket open(ioc);
  open.connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
  boost::asio::write(open, boost::asio::buffer(std::string("GET /ok HTTP/1.1\r\n")));
  const auto t1 = Clock::now();
  s.server.stop();
  CHECK(Clock::now() - t1 < 1000ms);
  HttpResult after = s.client().request("GET", "/ok", "", 500ms);
  CHECK(after.error == TransportError::refused);
}

TEST_CASE("Emu.HttpServer.connections_beyond_the_limit_get_503") {
  HttpServerOptions opt;
  opt.max_connections = 8;
  Served s(opt, echo);
  const auto port = s.server.port();
  {
    boost::asio::io_context ioc;
    std::vector<tcp::socket> idle;
    for (int i = 0; i < 8; ++i) {
      idle.emplace_back(ioc);
      idle.back().connect(tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    }
    for (int i = 0; i < 100 && s.server.open_connections() < 8; ++i) std::this_thread::sleep_for(10ms);
    CHECK(raw_exchange(port, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n").starts_with("HTTP/1.1 503"));
    CHECK(s.log.any_contains("-> 503: too many connections (limit 8)"));
  }
  // The idle ones closed: room again.
  for (int i = 0; i < 100 && s.server.open_connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK(s.client().request("GET", "/ok", "", 2000ms).status == 200);
}

TEST_CASE("Emu.HttpServer.stop_returns_while_a_handler_holds_a_request") {
  std::mutex mu;
  std::optional<Responder> held;
  auto server = std::make_unique<HttpServer>(HttpServerOptions{}, [&](const HttpRequest&, Responder r) {
    std::lock_guard lock(mu);
    held = std::move(r);
  });
  server->start();
  const auto port = server->port();
  std::thread client([port] {
    HttpClient c("127.0.0.1", port);
    HttpResult r = c.request("POST", "/v1/agents/poll", "{}", 3000ms);
    CHECK_FALSE(r.answered());  // the server went away before answering
  });
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(10ms);
    std::lock_guard lock(mu);
    if (held) break;
  }
  const auto t0 = Clock::now();
  server->stop();
  server.reset();
  CHECK(Clock::now() - t0 < 1000ms);
  client.join();
  std::lock_guard lock(mu);
  REQUIRE(held.has_value());
  (*held)(HttpResponse{});  // after the server is gone: does nothing
  held.reset();
}

TEST_CASE("Emu.HttpClient.refused_timeout_and_reconnect_are_values") {
  // Nobody listens on a port just released.
  std::uint16_t port;
  {
    HttpServer probe({}, echo);
    probe.start();
    port = probe.port();
  }
  HttpClient c("127.0.0.1", port);
  HttpResult refused = c.request("GET", "/", "", 1000ms);
  CHECK(refused.error == TransportError::refused);
  CHECK(refused.describe().starts_with("connection refused"));

  HttpServerOptions opt;
  opt.port = port;
  std::mutex mu;
  std::vector<Responder> held;
  {
    HttpServer slow(opt, [&](const HttpRequest& req, Responder r) {
      if (req.target == "/slow") {
        std::lock_guard lock(mu);
        held.push_back(std::move(r));
        return;
      }
      echo(req, std::move(r));
    });
    slow.start();
    REQUIRE(slow.port() == port);
    const auto t0 = Clock::now();
    HttpResult timeout = c.request("GET", "/slow", "", 300ms);
    CHECK(timeout.error == TransportError::timeout);
    CHECK(Clock::now() - t0 < 1000ms);
    CHECK(c.request("GET", "/fast", "", 1000ms).body == "GET /fast ");
  }
  {
    std::lock_guard lock(mu);
    held.clear();
  }
  // A new server on the same port: the kept-alive connection is broken, the client reconnects.
  HttpServer again(opt, echo);
  again.start();
  HttpResult r = c.request("GET", "/again", "", 1000ms);
  CHECK_MESSAGE(r.status == 200, r.describe());
  CHECK(r.body == "GET /again ");
  // A name instead of an address.
  HttpClient named("localhost", port);
  CHECK(named.request("GET", "/named", "", 1000ms).body == "GET /named ");
}

TEST_CASE("Emu.HttpServer.helpers") {
  std::string path;
  std::map<std::string, std::string> q;
  split_target("/v1/jobs?state=running&user=a%2Fb&flag&x=1+2#frag", path, q);
  CHECK(path == "/v1/jobs");
  CHECK(q.at("state") == "running");
  CHECK(q.at("user") == "a/b");
  CHECK(q.at("flag") == "");
  CHECK(q.at("x") == "1 2");
  CHECK(percent_decode("%zz%4", false) == "%zz%4");
  CHECK(log_safe("a\nb\xff", 100) == "a\\x0ab\\xff");
  CHECK(log_safe(std::string(500, 'a'), 10) == "aaaaaaaaaa...");
}

}  // namespace schedlab::emu::http_test
