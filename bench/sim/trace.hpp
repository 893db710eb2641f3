// SPDX-License-Identifier: GPL-2.0
// Access traces for the placement simulator: the seeded synthetic ones and
// trace files.  A trace is a sequence of page numbers 0 .. npages - 1; the
// working set is npages pages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cxltier::sim {

struct trace {
	std::string name;
	uint32_t npages = 0;
	// Accesses between hot-set shifts (a phase); 0 for a stationary trace.
	uint64_t phase = 0;
	// Accesses per window of the per-window oracle, for a trace whose hot
	// set changes (shifts or drifts); 0 for a stationary trace.
	uint64_t window = 0;
	std::vector<uint32_t> acc;
};

struct trace_params {
	uint32_t npages;	// working set (pages)
	uint64_t length;	// accesses, the initialisation pass included
	uint64_t phase;		// accesses between shifts ("shift", "phase-24"),
				// per slide (drift), between turnovers ("turnover")
	uint64_t seed;
};

// The trace corpus comes in two halves.  The tuning half is what the policy's
// defaults may be chosen on: these traces, at the size, length and seed given
// on the command line.  The held-out half is never tuned on: its traces are
// other families, parameters and seeds, each fixed here with its size, so
// that its results stay comparable from one release to the next.

// The tuning half, in table order.
const std::vector<std::string> &tuning_traces();

struct heldout_trace {
	std::string name;
	uint32_t npages;
	uint64_t periods;	// of npages / 4 accesses, the simulator's period
	uint64_t phase_periods;	// trace_params::phase, in those periods
	uint64_t seed;
};

// The held-out half, in table order.
const std::vector<heldout_trace> &heldout_traces();

// Every synthetic trace of either half starts by touching its pages once in
// address order (initialisation), then follows its pattern.  Throws
// std::invalid_argument for an unknown name or impossible parameters.
trace make_trace(const std::string &name, const trace_params &tp);

// Format "text": one page number per line (decimal, or hex with 0x), blank
// lines and everything after '#' ignored.  Format "u64le": a sequence of
// little-endian 64-bit page numbers.  "auto" picks u64le for names ending in
// .bin or .u64, text otherwise.  Page numbers may be sparse (for example
// virtual page numbers): they are renumbered densely in order of first
// appearance.  Throws std::runtime_error with the reason.
trace read_trace_file(const std::string &path, const std::string &format);

// FNV-1a over the (dense) page numbers of @t, one step per access: tells a
// trace file recorded again from the one a baseline was made on.
uint64_t trace_digest(const trace &t);

} // namespace cxltier::sim
