// SPDX-License-Identifier: GPL-2.0
// Running a program (scontrol) from the Slurm plugin and cxltier-slurm-gres: no
// shell, its output captured, and killed when it takes too long, so that a hung
// slurmctld cannot hold a job prolog (or the GRES helper) forever.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace cxltier_slurm {

struct command_result {
	int status = -1;    // exit status; -1 when it did not exit (killed, or could not start)
	std::string output; // stdout and stderr together, as it wrote them
	std::string error;  // why it did not run or finish, "" when it exited
	bool ok() const { return status == 0; }
	// "exit status 1: <output>", "<error>": one line for a log or a message.
	std::string describe() const;
};

// Runs @argv (argv[0] a path; a bare name is looked up in PATH) with stdin from
// /dev/null and this process's environment, and waits up to @timeout for it.
command_result run_command(const std::vector<std::string> &argv, std::chrono::milliseconds timeout);

// The first executable @name in PATH, else "".
std::string find_in_path(const std::string &name);

} // namespace cxltier_slurm
