// SPDX-License-Identifier: GPL-2.0
// The ruler of cxlt-bench-zipf: which tier each page of the working set counts on in a
// sample, from the kernel's own answer (move_pages(2) with no target), the same rule for
// every row.  Header-only, so that a host test (tests/bench/ruler_test.cpp) runs the
// rule the guest program runs.
//
// move_pages(2) has no node for a page that is not mapped.  cxltier's daemon unmaps the
// pages it samples (the next touch maps them again), and the workload is paused while
// the ruler reads, so a sampling window that opens in that pause hides every page, the
// hot ones too: counting them off DRAM read 0.0 for an interval in which the hot set sat
// in DRAM all along (Documentation/guest-bench.rst, "the ruler's blind spot").  A page
// the kernel cannot place now counts where the kernel last placed it ("carried"); one it
// never placed counts off DRAM.  The carry is wrong for a page that was moved while it
// was unmapped: for a region, the caller measures that against the module's own answer
// (carried_disagreement()) and reports it as the carry's error.  NUMA balancing's
// hinting entries stay mapped (PROT_NONE), so the kernel's rows hardly ever carry.
#ifndef CXLT_BENCH_RULER_HPP
#define CXLT_BENCH_RULER_HPP

#include <cstdint>
#include <set>
#include <vector>

namespace cxlt_bench {

// One page's history as the ruler saw it.
class page_history {
public:
	// What one answer of the kernel (@status: a node, or a negative errno) made of
	// the page in sample @idx.  A move is a change between two placed answers; it is
	// ping-pong when the page's previous move was at most @pp_samples samples ago.
	struct seen {
		int tier = -1;		// 1 fast, 0 slow, -1 never placed
		bool carried = false;	// no answer now: the last placed one counts
		bool moved = false;
		bool pingpong = false;
	};

	seen observe(int status, const std::set<int> &fast, int idx, int pp_samples)
	{
		seen s;

		if (status < 0) {
			s.tier = tier_;
			s.carried = tier_ >= 0;
			return s;
		}
		s.tier = fast.count(status) ? 1 : 0;
		if (tier_ >= 0 && s.tier != tier_) {
			s.moved = true;
			s.pingpong = idx - last_move_ <= pp_samples;
			last_move_ = idx;
		}
		tier_ = int8_t(s.tier);
		return s;
	}

	// The tier the page counts on now (-1: never placed).
	int tier() const { return tier_; }

private:
	int8_t tier_ = -1;
	int last_move_ = -1000000;
};

// One sample of the whole working set.  ftaf is the probability mass on the fast tier
// by the rule above; ftaf_mapped the mass on pages the kernel placed just now on the
// fast tier (the rule before the carry: a lower bound).
struct reading {
	double ftaf = 0, ftaf_mapped = 0, carried_mass = 0;
	uint64_t fast_pages = 0, absent_pages = 0, carried_pages = 0, moved = 0, pingpong = 0;
};

// @nodes[i] is the kernel's answer for page i, @prob[i] its access probability;
// @hist (one per page) is updated.
inline reading read_placement(std::vector<page_history> &hist, const std::vector<int> &nodes,
			      const std::vector<double> &prob, const std::set<int> &fast, int idx,
			      int pp_samples)
{
	reading r;

	for (size_t i = 0; i < hist.size(); i++) {
		page_history::seen s = hist[i].observe(nodes[i], fast, idx, pp_samples);

		if (s.tier == 1) {
			r.ftaf += prob[i];
			r.fast_pages++;
			if (!s.carried)
				r.ftaf_mapped += prob[i];
		}
		if (nodes[i] < 0)
			r.absent_pages++;
		if (s.carried) {
			r.carried_pages++;
			r.carried_mass += prob[i];
		}
		r.moved += s.moved;
		r.pingpong += s.pingpong;
	}
	return r;
}

// The probability mass of the pages the kernel could not place in the last
// read_placement() (@nodes: its answers then) that @own, another answer for the same
// moment (a region's CXLTIER_IOC_PAGES), puts on the other tier than the ruler
// counted them on (carried, or off DRAM when never placed): how far the ruler can be
// off.  Pages @own does not place are left out.
inline double carried_disagreement(const std::vector<page_history> &hist,
				   const std::vector<int> &nodes, const std::vector<int> &own,
				   const std::vector<double> &prob, const std::set<int> &fast)
{
	double m = 0;

	for (size_t i = 0; i < hist.size(); i++)
		if (nodes[i] < 0 && own[i] >= 0 &&
		    (fast.count(own[i]) ? 1 : 0) != (hist[i].tier() == 1 ? 1 : 0))
			m += prob[i];
	return m;
}

} // namespace cxlt_bench

#endif
