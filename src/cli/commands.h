// The subcommands of `schedlab`. Each add_*_command registers one subcommand (with its
// options and help) on the root app and sets `exit_code` when it runs. Errors are thrown
// (InputError -> exit 2, EnvironmentError -> exit 3) and caught once, in main.cpp.
#pragma once

#include <CLI/CLI.hpp>

namespace schedlab::cli {

void add_run_command(CLI::App& app, int& exit_code);
void add_compare_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_list_command(CLI::App& app, int& exit_code);
void add_trace_command(CLI::App& app, int& exit_code);
void add_calibrate_command(CLI::App& app, int& exit_code);
void add_model_command(CLI::App& app, int& exit_code);
void add_emulate_command(CLI::App& app, int& exit_code);
void add_agent_command(CLI::App& app, int& exit_code);
void add_worker_command(CLI::App& app, int& exit_code);
void add_sweep_command(CLI::App& app, int& exit_code);
void add_plot_command(CLI::App& app, int& exit_code);
void add_completion_command(CLI::App& app, int& exit_code);

// The error for a first word that names no subcommand ("unknown command 'rn'; did you mean
// 'run'? ..."), or empty when `word` is an option, a subcommand or absent.
std::string unknown_command_message(const CLI::App& app, const std::string& word);

}  // namespace schedlab::cli
