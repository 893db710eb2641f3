// SPDX-License-Identifier: GPL-2.0
#include "trace.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "rng.hpp"

namespace cxltier::sim {

namespace {

// Walker/Vose alias table: O(1) draws from a fixed discrete distribution.
class alias_table {
public:
	explicit alias_table(const std::vector<double> &w)
		: prob_(w.size()), alias_(w.size())
	{
		const size_t n = w.size();
		double sum = std::accumulate(w.begin(), w.end(), 0.0);
		std::vector<double> p(n);
		std::vector<uint32_t> small, large;

		for (size_t i = 0; i < n; i++) {
			p[i] = w[i] * static_cast<double>(n) / sum;
			(p[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
		}
		while (!small.empty() && !large.empty()) {
			uint32_t s = small.back(), l = large.back();

			small.pop_back();
			prob_[s] = p[s];
			alias_[s] = l;
			p[l] -= 1.0 - p[s];
			if (p[l] < 1.0) {
				large.pop_back();
				small.push_back(l);
			}
		}
		// Whatever is left is 1 up to rounding.
		for (uint32_t i : large)
			prob_[i] = 1.0;
		for (uint32_t i : small)
			prob_[i] = 1.0;
	}

	uint32_t draw(rng &r) const
	{
		uint32_t i = r.below(static_cast<uint32_t>(prob_.size()));

		return r.uniform() < prob_[i] ? i : alias_[i];
	}

private:
	std::vector<double> prob_;
	std::vector<uint32_t> alias_;
};

// Hot pages must not sit at low page numbers: a policy that scans the table
// from page 0 would find them first for a reason no real workload gives it.
std::vector<uint32_t> shuffled(uint32_t n, rng &r)
{
	std::vector<uint32_t> v(n);

	std::iota(v.begin(), v.end(), 0U);
	for (uint32_t i = n - 1; i > 0; i--)
		std::swap(v[i], v[r.below(i + 1)]);
	return v;
}

// Zipf(s) draws over n items, the ranks shuffled over the items.
class zipf_draw {
public:
	zipf_draw(uint32_t n, double s, rng &r) : a_(weights(n, s)), item_(shuffled(n, r)) {}

	uint32_t operator()(rng &r) const { return item_[a_.draw(r)]; }

private:
	static std::vector<double> weights(uint32_t n, double s)
	{
		std::vector<double> w(n);

		for (uint32_t i = 0; i < n; i++)
			w[i] = std::pow(static_cast<double>(i) + 1.0, -s);
		return w;
	}

	alias_table a_;
	std::vector<uint32_t> item_;
};

void zipf(trace &t, const trace_params &tp, double s, rng &r)
{
	zipf_draw z(tp.npages, s, r);

	while (t.acc.size() < tp.length)
		t.acc.push_back(z(r));
}

void uniform(trace &t, const trace_params &tp, rng &r)
{
	while (t.acc.size() < tp.length)
		t.acc.push_back(r.below(tp.npages));
}

// 90% of the accesses go uniformly to a hot set of 1/@hot_div of the pages,
// the rest uniformly to all pages; every phase the hot set is redrawn.
void shift(trace &t, const trace_params &tp, uint32_t hot_div, rng &r)
{
	const uint32_t hot = std::max(tp.npages / hot_div, 1U);
	std::vector<uint32_t> page;

	t.phase = tp.phase;
	t.window = tp.phase;
	// Phases count from the first access, initialisation included, so they
	// line up with the per-window oracle's windows.
	while (t.acc.size() < tp.length) {
		if (page.empty() || t.acc.size() % tp.phase == 0)
			page = shuffled(tp.npages, r);
		if (r.below(10) < 9)
			t.acc.push_back(page[r.below(hot)]);
		else
			t.acc.push_back(r.below(tp.npages));
	}
}

// Half of the accesses go uniformly to a hot set of 1/8 of the pages; the
// other half is a sequential scan, over and over, of all the other pages.
void scan(trace &t, const trace_params &tp, rng &r)
{
	const uint32_t hot = std::max(tp.npages / 8, 1U);
	const uint32_t cold = tp.npages - hot;
	auto page = shuffled(tp.npages, r);
	uint32_t pos = 0;

	// Scan in address order, as a real scan walks its buffer.
	std::sort(page.begin() + hot, page.end());

	while (t.acc.size() < tp.length) {
		if (!cold || r.below(2) == 0) {
			t.acc.push_back(page[r.below(hot)]);
		} else {
			t.acc.push_back(page[hot + pos]);
			pos = pos + 1 < cold ? pos + 1 : 0;
		}
	}
}

// 90% of the accesses go uniformly to a hot window of 1/5 of the pages, the
// rest uniformly to all pages; the window slides over a shuffled order of the
// pages, continuously, by its own width every phase (1/64 of it per period by
// default): a few pages leave the hot set and a few join it all the time.
void drift(trace &t, const trace_params &tp, rng &r)
{
	const uint32_t hot = std::max(tp.npages / 5, 1U);
	auto page = shuffled(tp.npages, r);
	const uint64_t start = t.acc.size();

	// The per-window oracle over a quarter phase: the hot set of a window
	// then still nearly fits a fast tier of 1/4.
	t.window = std::max<uint64_t>(tp.phase / 4, 1);
	while (t.acc.size() < tp.length) {
		uint64_t base = (t.acc.size() - start) * hot / tp.phase;

		if (r.below(10) < 9)
			t.acc.push_back(page[(base + r.below(hot)) % tp.npages]);
		else
			t.acc.push_back(r.below(tp.npages));
	}
}

// Lookups, Zipf 0.99 over all pages (ranks shuffled), mixed with a sequential
// sweep, over and over, of all pages in address order (a table scan): 1/4 of
// the accesses are the sweep's, so with the default period every page is swept
// once in 16 periods.
void zipf_sweep(trace &t, const trace_params &tp, rng &r)
{
	zipf_draw z(tp.npages, 0.99, r);
	uint32_t pos = 0;

	while (t.acc.size() < tp.length) {
		if (r.below(4) == 0) {
			t.acc.push_back(pos);
			pos = pos + 1 < tp.npages ? pos + 1 : 0;
		} else {
			t.acc.push_back(z(r));
		}
	}
}

// Held-out: a training loop.  Each step looks an embedding table up (Zipf
// 1.05 over 5/8 of the pages, ranks shuffled over the table) for 3/2 x npages
// accesses, then sweeps a dense array (the other 3/8 of the pages, in address
// order, two accesses per page: read, then write back).  With the simulator's
// period the lookups last 6 periods and the sweep 3: each dense page is used
// once per step, as often as a lukewarm embedding row, but all at once.
void train_mix(trace &t, const trace_params &tp, rng &r)
{
	const uint32_t emb = std::max(tp.npages / 8 * 5, 1U);
	const uint64_t lookups = uint64_t(tp.npages) * 3 / 2;
	zipf_draw z(emb, 1.05, r);

	// Whole steps, the last one cut to the length.
	while (t.acc.size() < tp.length) {
		for (uint64_t i = 0; i < lookups; i++)
			t.acc.push_back(z(r));
		for (uint32_t p = emb; p < tp.npages; p++)
			t.acc.insert(t.acc.end(), 2, p);
	}
	t.acc.resize(tp.length);
}

// Held-out: 85% of the accesses go uniformly to a hot set of 1/8 of the
// pages, the rest uniformly to all pages; every phase about 1/16 of the hot
// pages, drawn at random, leave the hot set for as many random cold ones.
// The hot set turns over gradually and in no order (a page stays hot for
// about 16 phases, but any one may leave at any turn), where drift's window
// slides through a fixed order.
void turnover(trace &t, const trace_params &tp, rng &r)
{
	const uint32_t hot = std::max(tp.npages / 8, 1U);
	const uint32_t turn = std::max(hot / 16, 1U);
	// page[0, hot) is the hot set.
	auto page = shuffled(tp.npages, r);

	t.window = 4 * tp.phase;
	while (t.acc.size() < tp.length) {
		if (t.acc.size() % tp.phase == 0)
			for (uint32_t i = 0; i < turn; i++)
				std::swap(page[r.below(hot)], page[hot + r.below(tp.npages - hot)]);
		if (r.below(100) < 85)
			t.acc.push_back(page[r.below(hot)]);
		else
			t.acc.push_back(r.below(tp.npages));
	}
}

// Held-out: mostly sequential.  60% of the accesses scan a large array (11/16
// of the pages) over and over, 25% a small one (1/8 of the pages: with the
// simulator's period, once every two periods), 15% go uniformly to a hot set
// of 1/16 of the pages.  Each array is scanned in address order; the three
// sets are interleaved at random over the address space.
void seq_heavy(trace &t, const trace_params &tp, rng &r)
{
	const uint32_t hot = std::max(tp.npages / 16, 1U);
	const uint32_t small = std::max(tp.npages / 8, 1U);
	const uint32_t large = tp.npages - hot - small;
	auto page = shuffled(tp.npages, r);
	uint32_t spos = 0, lpos = 0;

	std::sort(page.begin() + hot, page.begin() + hot + small);
	std::sort(page.begin() + hot + small, page.end());
	while (t.acc.size() < tp.length) {
		uint32_t d = r.below(100);

		if (d < 15) {
			t.acc.push_back(page[r.below(hot)]);
		} else if (d < 40) {
			t.acc.push_back(page[hot + spos]);
			spos = spos + 1 < small ? spos + 1 : 0;
		} else {
			t.acc.push_back(page[hot + small + lpos]);
			lpos = lpos + 1 < large ? lpos + 1 : 0;
		}
	}
}

} // namespace

const std::vector<std::string> &tuning_traces()
{
	static const std::vector<std::string> names = {
		"zipf-0.8", "zipf-0.99", "zipf-1.2", "shift", "drift", "scan", "zipf-sweep",
		"uniform",
	};
	return names;
}

const std::vector<heldout_trace> &heldout_traces()
{
	// Half the tuning half's working set, 3/4 of its periods: the whole
	// half costs about as much as two tuning traces.
	static const std::vector<heldout_trace> traces = {
		{ "train-mix", 16384, 768, 64, 101 },
		{ "turnover", 16384, 768, 4, 102 },
		{ "zipf-0.9", 16384, 768, 64, 103 },
		{ "phase-24", 16384, 768, 24, 104 },
		{ "seq-heavy", 16384, 768, 64, 105 },
	};
	return traces;
}

trace make_trace(const std::string &name, const trace_params &tp)
{
	trace t;
	// Each trace has its own stream, so adding a trace changes no other;
	// FNV-1a, not std::hash, whose value differs between libraries.
	uint64_t h = 0xcbf29ce484222325ULL;

	for (unsigned char c : name)
		h = (h ^ c) * 0x100000001b3ULL;
	rng r(tp.seed ^ h);

	if (tp.npages < 8 || tp.length < tp.npages || !tp.phase)
		throw std::invalid_argument("a trace needs 8 pages or more, and as many accesses");
	t.name = name;
	t.npages = tp.npages;
	t.acc.reserve(tp.length);
	// The program first initialises its memory in address order (as after
	// a large allocation or a load from storage): first touch then says
	// nothing about which pages will be hot.
	for (uint32_t p = 0; p < tp.npages; p++)
		t.acc.push_back(p);
	if (name == "zipf-0.8")
		zipf(t, tp, 0.8, r);
	else if (name == "zipf-0.99")
		zipf(t, tp, 0.99, r);
	else if (name == "zipf-1.2")
		zipf(t, tp, 1.2, r);
	else if (name == "shift")
		shift(t, tp, 5, r);
	else if (name == "drift")
		drift(t, tp, r);
	else if (name == "scan")
		scan(t, tp, r);
	else if (name == "zipf-sweep")
		zipf_sweep(t, tp, r);
	else if (name == "uniform")
		uniform(t, tp, r);
	else if (name == "train-mix")
		train_mix(t, tp, r);
	else if (name == "turnover")
		turnover(t, tp, r);
	else if (name == "zipf-0.9")
		zipf(t, tp, 0.9, r);
	else if (name == "phase-24")
		shift(t, tp, 6, r);
	else if (name == "seq-heavy")
		seq_heavy(t, tp, r);
	else
		throw std::invalid_argument(fmt::format("unknown trace '{}'", name));
	return t;
}

trace read_trace_file(const std::string &path, const std::string &format)
{
	std::ifstream in(path, std::ios::binary);
	std::unordered_map<uint64_t, uint32_t> ids;
	trace t;
	std::string fmt_ = format;

	if (!in)
		throw std::runtime_error(fmt::format("{}: cannot open", path));
	if (fmt_ == "auto") {
		bool bin = path.ends_with(".bin") || path.ends_with(".u64");
		fmt_ = bin ? "u64le" : "text";
	}
	auto add = [&](uint64_t vpn) {
		auto [it, fresh] = ids.try_emplace(vpn, static_cast<uint32_t>(ids.size()));
		if (fresh && ids.size() > UINT32_MAX)
			throw std::runtime_error(fmt::format("{}: more than 2^32 distinct pages", path));
		t.acc.push_back(it->second);
	};

	if (fmt_ == "text") {
		std::string line;
		uint64_t lineno = 0;

		while (std::getline(in, line)) {
			lineno++;
			line = line.substr(0, line.find('#'));
			auto b = line.find_first_not_of(" \t\r");
			if (b == std::string::npos)
				continue;
			auto e = line.find_last_not_of(" \t\r");
			std::string tok = line.substr(b, e - b + 1);
			size_t used = 0;
			uint64_t v;

			try {
				v = std::stoull(tok, &used, 0);
			} catch (const std::exception &) {
				used = 0;
			}
			if (!used || used != tok.size() || tok[0] == '-')
				throw std::runtime_error(fmt::format("{}:{}: not a page number: '{}'",
								     path, lineno, tok));
			add(v);
		}
	} else if (fmt_ == "u64le") {
		unsigned char b[8];

		while (in.read(reinterpret_cast<char *>(b), 8)) {
			uint64_t v = 0;

			for (int i = 7; i >= 0; i--)
				v = (v << 8) | b[i];
			add(v);
		}
		if (in.gcount())
			throw std::runtime_error(fmt::format("{}: size is not a multiple of 8 bytes", path));
	} else {
		throw std::runtime_error(fmt::format("unknown trace format '{}'", format));
	}
	// A read that fails half way must not pass for a shorter trace.
	if (in.bad())
		throw std::runtime_error(fmt::format("{}: read error", path));
	if (t.acc.empty())
		throw std::runtime_error(fmt::format("{}: no accesses", path));
	auto slash = path.find_last_of('/');
	t.name = slash == std::string::npos ? path : path.substr(slash + 1);
	t.npages = static_cast<uint32_t>(ids.size());
	return t;
}

uint64_t trace_digest(const trace &t)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (uint32_t p : t.acc)
		h = (h ^ p) * 0x100000001b3ULL;
	return h;
}

} // namespace cxltier::sim
