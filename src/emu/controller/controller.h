// The emulator's controller: the HTTP endpoint agents register with and poll (the wire of
// docs/emulation.md), the registry of agents by host, and the bridge between them and the
// loop. Agents' reports are posted to the wall clock's inbox and handled by the executor in
// the loop's thread; the executor's commands wait in a host's outbox until its agent polls
// (a held poll is answered at once). A host whose agent misses its heartbeat deadline is lost
// (its GPUs go down, its jobs fail) until the agent registers again.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cluster/topology.h"
#include "emu/controller/emu_executor.h"
#include "emu/controller/inbox.h"
#include "emu/controller/wall_clock.h"
#include "emu/net/http_server.h"
#include "emu/net/router.h"

namespace schedlab::emu {

struct ControllerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  std::string token;  // required from every agent and API call when not empty
  std::vector<std::string> open_paths;  // GETs answered without it (HttpServerOptions::open_paths)
  std::uint32_t heartbeat_interval_ms = 1000;  // how long a poll is held at most
  std::uint32_t heartbeat_timeout_ms = 5000;   // no poll for this long: the host is lost
  std::function<void(const std::string&)> log;  // one line per event worth telling (stderr)
};

class Controller final : public AgentLink {
 public:
  Controller(const cluster::Topology& topo, ControllerOptions options);
  ~Controller() override;

  // Where the agents' reports and lost hosts go, to the loop (set before start()).
  void attach(Inbox& inbox) { inbox_ = &inbox; }
  // A resumed controller, before start(): the tasks the loop believes run on `host`. Those
  // its agent neither lists nor reports when it registers again died meanwhile.
  void expect(cluster::HostId host, std::vector<std::string> tasks);
  // Extra routes (the API) on the same server, added before start().
  Router& router() { return router_; }
  void start();
  void stop();
  std::uint16_t port() const { return server_ ? server_->port() : 0; }

  // Waits until every host of the cluster has an agent; false (with the missing hosts named
  // in `missing`) when `timeout` passes first.
  bool wait_for_agents(std::chrono::milliseconds timeout, std::string& missing);
  // By host: whether an agent has registered (and is not lost).
  std::vector<bool> hosts_up() const;
  // Tells every agent to kill its tasks and exit.
  void shutdown_agents();
  // "up", "lost" (missed its heartbeat deadline) or "absent" (never registered).
  std::string agent_state(cluster::HostId host) const;
  // Whether anything may still arrive: a lost host may come back.
  bool hosts_lost() const;
  // Registrations of an agent for a host that already had one during this controller's life.
  std::uint64_t reregistrations() const { return reregistrations_.load(); }

  // AgentLink
  void send(cluster::HostId host, Command command) override;
  std::string address_of(cluster::HostId host) const override;

 private:
  struct Agent {
    std::string agent_id;  // "" until it registers
    std::string address;   // its IP, as the controller saw it
    std::chrono::steady_clock::time_point last_seen;
    std::deque<Command> outbox;
    std::optional<Responder> held;  // its poll, held open
    std::chrono::steady_clock::time_point held_until;
    bool lost = false;  // missed its deadline; back when it registers again
    // Tasks launched by its agent (delivered in a poll answer) that have not exited: after a
    // re-registration, those it does not list died with the old incarnation.
    std::unordered_set<std::string> delivered;
    // Tasks whose "running" this incarnation's reports already told the loop: every poll lists
    // every running task, and only the first of those reports is news (the loop keeps no
    // progress of its own from them). Forgotten when the task's exit arrives.
    std::unordered_set<std::string> running_told;
  };
  void on_register(const HttpRequest& req, Responder respond);
  void on_poll(const HttpRequest& req, Responder respond);
  void on_report(const HttpRequest& req, Responder respond);
  // Under the lock: the agent of `host` if `agent_id` is its current registration (it was
  // heard from now; exited tasks leave its delivered set, and `reports` keeps only news: exits,
  // and a task's first "running"), else answers 409 and returns null.
  Agent* heard_from(const std::string& host, const std::string& agent_id, std::vector<TaskReport>& reports,
                    const Responder& respond);
  // Posts the reports to the loop (executor, in the loop's thread); may run under the lock (the
  // inbox never calls back into the controller while posting).
  void deliver(cluster::HostId host, std::vector<TaskReport> reports);
  // Answers a held poll with the outbox (under the lock).
  void flush(Agent& a);
  void tick();
  void log(const std::string& line) const;

  const cluster::Topology& topo_;
  ControllerOptions options_;
  Inbox* inbox_ = nullptr;
  Router router_;
  std::unique_ptr<HttpServer> server_;
  mutable std::mutex mu_;
  std::condition_variable registered_;
  std::vector<Agent> agents_;  // by host
  std::unordered_map<std::string, cluster::HostId> host_by_name_;
  std::uint64_t incarnation_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> reregistrations_{0};
  std::thread ticker_;
};

}  // namespace schedlab::emu
