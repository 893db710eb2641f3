// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-svmdata: the data of the guest benchmark's liblinear program, a sparse
// binary classification problem in LIBSVM's text format, the same for a seed.
//
//   cxlt-bench-svmdata [--instances L] [--nonzeros K] [--features N] [--zipf S]
//                      [--noise X] [--seed N] --out FILE
//
// Each instance has K distinct features drawn from a Zipf over N (feature f has
// weight f^-S, as word counts in text do), with values uniform in (0, 1], and the
// label is the sign of a hidden Gaussian weight vector's score plus Gaussian noise of
// standard deviation X.  liblinear-train holds it as (K + 1) x L feature nodes of 16
// bytes (its x_space) and a weight per feature: with the defaults, 34 MB and 4 MB,
// almost twice the benchmark's DRAM limit; the frequent features' weights and the
// instances the solver keeps active (its shrinking) are the hot part.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "../sim/rng.hpp"

namespace {

using cxltier::sim::rng;

double gauss(rng &r)
{
	// Box-Muller; 1 - uniform() is in (0, 1].
	double u = 1.0 - r.uniform(), v = r.uniform();
	return std::sqrt(-2.0 * std::log(u)) * std::cos(2 * M_PI * v);
}

} // namespace

int main(int argc, char **argv)
{
	uint64_t l = 100000, seed = 1;
	uint32_t k = 20, n = 500000;
	double s = 0.9, noise = 0.5;
	std::string out;
	CLI::App app{ "Write a sparse classification problem in LIBSVM format (for liblinear-train)" };

	app.add_option("--instances", l, "instances (lines)")->check(CLI::Range(uint64_t(1), uint64_t(1) << 32));
	app.add_option("--nonzeros", k, "features per instance")->check(CLI::Range(1, 1000));
	app.add_option("--features", n, "features in all")->check(CLI::Range(1, 1 << 28));
	app.add_option("--zipf", s, "Zipf exponent of the features' frequencies")->check(CLI::Range(0.0, 5.0));
	app.add_option("--noise", noise, "standard deviation of the label noise")->check(CLI::Range(0.0, 100.0));
	app.add_option("--seed", seed, "seed of the data");
	app.add_option("--out", out, "the file to write")->required();
	CLI11_PARSE(app, argc, argv);
	if (k > n) {
		fprintf(stderr, "cxlt-bench-svmdata: --nonzeros (%u) is more than --features (%u)\n", k, n);
		return 2;
	}

	rng r(seed);
	std::vector<double> cdf(n), w(n);
	double total = 0;
	for (uint32_t f = 0; f < n; f++) {
		total += std::pow(double(f + 1), -s);
		cdf[f] = total;
		w[f] = gauss(r);
	}
	std::ofstream f(out);
	if (!f) {
		fprintf(stderr, "cxlt-bench-svmdata: cannot write %s\n", out.c_str());
		return 1;
	}
	std::set<uint32_t> idx;
	std::vector<double> val;
	std::string line;
	char buf[32];
	for (uint64_t i = 0; i < l; i++) {
		idx.clear();
		while (idx.size() < k)
			idx.insert(uint32_t(std::lower_bound(cdf.begin(), cdf.end(), r.uniform() * total) -
					    cdf.begin()));
		double score = noise * gauss(r);
		line.clear();
		for (uint32_t x : idx) {
			// Three decimals, as written: the score uses the value liblinear reads.
			int milli = 1 + int(r.below(1000));
			score += w[x] * milli / 1000.0;
			snprintf(buf, sizeof(buf), " %u:%d.%03d", x + 1, milli / 1000, milli % 1000);
			line += buf;
		}
		f << (score > 0 ? "+1" : "-1") << line << '\n';
	}
	f.close();
	if (!f) {
		fprintf(stderr, "cxlt-bench-svmdata: cannot write %s\n", out.c_str());
		return 1;
	}
	return 0;
}
