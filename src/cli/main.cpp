// schedlab's entry point: builds the command tree and maps errors to exit codes.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.h"
#include "util/error.h"

int main(int argc, char** argv) {
  CLI::App app{"schedlab: GPU-cluster scheduling simulator", "schedlab"};
  app.set_version_flag("--version", std::string("schedlab ") + SCHEDLAB_VERSION);
  app.require_subcommand(1);
  int exit_code = 0;
  schedlab::cli::add_run_command(app, exit_code);
  schedlab::cli::add_compare_command(app, exit_code);
  schedlab::cli::add_validate_command(app, exit_code);
  schedlab::cli::add_list_command(app, exit_code);
  schedlab::cli::add_trace_command(app, exit_code);
  schedlab::cli::add_calibrate_command(app, exit_code);
  schedlab::cli::add_model_command(app, exit_code);
  schedlab::cli::add_emulate_command(app, exit_code);
  schedlab::cli::add_agent_command(app, exit_code);
  schedlab::cli::add_worker_command(app, exit_code);
  schedlab::cli::add_sweep_command(app, exit_code);
  schedlab::cli::add_plot_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const schedlab::InputError& e) {
    fmt::print(stderr, "schedlab: error: {}\n", e.what());
    return 2;
  } catch (const schedlab::EnvironmentError& e) {
    fmt::print(stderr, "schedlab: {}\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "schedlab: internal error: {}\n", e.what());
    return 1;
  }
  return exit_code;
}
