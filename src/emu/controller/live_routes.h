// The controller's routes for watching an emulation live (docs/emulation.md): GET /healthz
// (the loop answers: it is alive), GET /metrics (Prometheus text, emu/controller/live_metrics.h)
// and GET / (a page embedded in the binary that draws the hosts, the running jobs and the queue
// from the JSON API every second, with no asset from elsewhere). Like the API's views, every
// figure is read in the loop's thread at its next instant.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cluster/topology.h"
#include "emu/controller/emu_executor.h"
#include "emu/controller/wall_clock.h"
#include "emu/net/router.h"

namespace schedlab::emu {

// The paths a browser fetches without the token (HttpServerOptions::open_paths): the page
// holds no figure of the run; it reads them from the API with the token of its URL's fragment.
std::vector<std::string> live_open_paths();

// Adds GET /healthz, /metrics and / to `router`. `agent_state(host)` says "up", "lost" or
// "absent" (Controller::agent_state).
void add_live_routes(Router& router, WallClock& clock, const EmuExecutor& executor, const cluster::Topology& topo,
                     std::function<std::string(cluster::HostId)> agent_state);

}  // namespace schedlab::emu
