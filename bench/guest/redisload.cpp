// SPDX-License-Identifier: GPL-2.0
// cxlt-bench-redisload: the load generator of the guest benchmark's redis program
// (bench/guest/run-configs --programs redis): a client of an unmodified redis-server
// that speaks RESP to it over a Unix socket or TCP, run by cxlt-bench-prog --client--
// while the server's pages are located from outside.
//
//   cxlt-bench-redisload (--socket PATH | [--host H] --port N) [--keys K]
//                        [--value-bytes V] [--zipf S] [--seed N] [--set-frac F]
//                        [--pipeline P] [--warmup S] [--duration S] [--interval S]
//                        [--connect-timeout S] [--io-timeout S] [--mlock] [--out FILE]
//
// Why our own client: redis-benchmark draws its keys uniformly (-r: random keys of a
// range), or in sequence; it has no skewed key distribution, and a uniform one
// leaves tiering nothing to find: every page is as hot as any other.
//
// Phase 1 loads K keys (key:00000000 ...) of V-byte values in key order, pipelined
// SETs.  Phase 2 sends GETs (and a share --set-frac of SETs of the same values) whose
// keys are Zipf(S)-distributed over the ranks, rank r mapped to a key by a seeded
// permutation (measure.hpp, the same draws as cxlt-bench-zipf's: the hot keys are not
// the first loaded, so their values are scattered over the server's heap), P
// commands in flight at a time, for --warmup seconds (not counted) and then
// --duration seconds.  Every value says which key it is: a GET that misses or returns
// another key's value or another length is an error (the keyspace must be intact),
// and so is any error reply and a DBSIZE other than K at the end.
//
// Prints (or writes to --out) one JSON document: ops_per_s of the measured span, the
// counts of GETs, SETs, misses and errors, the share of the ops that went to the top
// 1% of the keys, the hottest keys, the load phase's rate, the server's memory (INFO)
// and ops/s per --interval.  Exit status: 0; 1 when the keyspace was not intact
// (the JSON says how); 2 when the server could not be reached or went away (no
// JSON), with what happened on stderr.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <utility>

#include <CLI/CLI.hpp>

#include "measure.hpp"
#include "../../tools/common/fd_owner.hpp"

namespace {

using cxltier::sim::rng;
using namespace cxlt_bench;

struct options {
	std::string socket, host = "127.0.0.1", out;
	int port = 0;
	uint32_t keys = 65536, value_bytes = 1000, pipeline = 32;
	double zipf = 0.99, set_frac = 0, warmup = 10, duration = 30, interval = 5;
	double connect_timeout = 30, io_timeout = 30;
	uint64_t seed = 1;
	bool mlock = false;
};

// The server could not be reached, went away or spoke something else than RESP.
struct conn_error : std::runtime_error {
	using std::runtime_error::runtime_error;
};

using fd_handle = cxlt_tools::fd_owner;

struct reply {
	char type = 0;		// '+', '-', ':', '$' (bulk; nil: null), '*' (not expected)
	bool nil = false;
	std::string text;	// the line, or the bulk string
};

// One connection to the server, RESP2, commands pipelined by the caller.
class redis_conn {
public:
	redis_conn(const options &o, const std::string &where) : where_(where), timeout_(o.io_timeout)
	{
		const double deadline = now() + o.connect_timeout;
		std::string why;

		// The server may still be starting: try again until the deadline.
		for (;;) {
			fd_ = try_connect(o, why);
			if (fd_.get() >= 0)
				return;
			if (now() >= deadline)
				throw conn_error("cannot connect to " + where_ + " within " +
						 fmt(o.connect_timeout) + " s: " + why);
			usleep(50000);
		}
	}

	void send(const std::string &buf)
	{
		for (size_t off = 0; off < buf.size();) {
			wait_for(POLLOUT, "send to");
			ssize_t n = ::send(fd_.get(), buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n < 0)
				throw conn_error("the connection to " + where_ + " broke (" +
						 strerror(errno) + "): the server is gone?");
			off += size_t(n);
		}
	}

	reply read()
	{
		reply r;
		std::string line = read_line();

		if (line.empty())
			throw conn_error("empty reply line from " + where_);
		r.type = line[0];
		r.text = line.substr(1);
		switch (r.type) {
		case '+':
		case '-':
		case ':':
			return r;
		case '$': {
			long len = strtol(r.text.c_str(), nullptr, 10);
			if (len < 0) {
				r.nil = true;
				r.text.clear();
				return r;
			}
			fill(size_t(len) + 2);
			r.text.assign(buf_, pos_, size_t(len));
			pos_ += size_t(len) + 2;
			return r;
		}
		default:
			throw conn_error("unexpected reply from " + where_ + ": " + line.substr(0, 60));
		}
	}

	// One command and its reply, no pipelining (DBSIZE, INFO).
	reply call(const std::vector<std::string> &args)
	{
		std::string cmd;
		append_command(cmd, args);
		send(cmd);
		return read();
	}

	static void append_command(std::string &out, const std::vector<std::string> &args)
	{
		out += '*' + std::to_string(args.size()) + "\r\n";
		for (const auto &a : args) {
			out += '$' + std::to_string(a.size()) + "\r\n";
			out += a;
			out += "\r\n";
		}
	}

private:
	static std::string fmt(double s)
	{
		char b[32];
		snprintf(b, sizeof(b), "%g", s);
		return b;
	}

	static fd_handle try_connect(const options &o, std::string &why)
	{
		sock_address a;

		try {
			a = parse_address(o.socket.empty()
				? "tcp:" + o.host + ":" + std::to_string(o.port)
				: "unix:" + o.socket);
		} catch (const std::invalid_argument &e) {
			throw conn_error(e.what());
		}
		fd_handle fd(connect_to(a));
		if (fd.get() < 0)
			why = strerror(errno);
		return fd;
	}

	void wait_for(short ev, const char *what)
	{
		pollfd p{ fd_.get(), ev, 0 };
		int n;

		while ((n = poll(&p, 1, int(timeout_ * 1000))) < 0 && errno == EINTR)
			;
		if (n == 0)
			throw conn_error(std::string("no progress within ") + fmt(timeout_) + " s to " +
					 what + " " + where_ + " (--io-timeout): the server hangs?");
		if (n < 0)
			throw conn_error(std::string("poll: ") + strerror(errno));
	}

	// At least @n unread bytes in the buffer.
	void fill(size_t n)
	{
		if (pos_ > 0 && buf_.size() - pos_ < n) {
			buf_.erase(0, pos_);
			pos_ = 0;
		}
		while (buf_.size() - pos_ < n) {
			char tmp[65536];
			wait_for(POLLIN, "read from");
			ssize_t r = recv(fd_.get(), tmp, sizeof(tmp), 0);
			if (r < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (r < 0)
				throw conn_error("the connection to " + where_ + " broke (" +
						 strerror(errno) + "): the server is gone?");
			if (r == 0)
				throw conn_error("the server closed the connection (" + where_ +
						 "): it exited or was killed?");
			buf_.append(tmp, size_t(r));
		}
	}

	std::string read_line()
	{
		for (;;) {
			size_t at = buf_.find("\r\n", pos_);
			if (at != std::string::npos) {
				std::string line = buf_.substr(pos_, at - pos_);
				pos_ = at + 2;
				return line;
			}
			fill(buf_.size() - pos_ + 1);
		}
	}

	std::string where_;
	double timeout_;
	fd_handle fd_;
	std::string buf_;
	size_t pos_ = 0;
};

std::string key_name(uint32_t i)
{
	char b[16];
	snprintf(b, sizeof(b), "key:%08u", i);
	return b;
}

// Key i's value: its number, then a letter of its own to the length.
std::string value_of(uint32_t i, uint32_t len)
{
	char b[16];
	int n = snprintf(b, sizeof(b), "%010u:", i);
	std::string v(len, char('a' + i % 26));
	v.replace(0, std::min<size_t>(len, size_t(n)), b, std::min<size_t>(len, size_t(n)));
	return v;
}

struct counts {
	uint64_t gets = 0, sets = 0, misses = 0, errors = 0, wrong = 0, top = 0;
	std::string first_error;
};

// One pipelined batch of draws: P commands, then their P replies.
void batch(redis_conn &c, const options &o, rng &r, const alias_table &table,
	   const std::vector<uint32_t> &perm, uint32_t top_ranks, counts &n)
{
	std::string cmd;
	std::vector<std::pair<uint32_t, bool>> sent;	// key, is a SET

	for (uint32_t i = 0; i < o.pipeline; i++) {
		uint32_t rank = table.draw(r.next()), key = perm[rank];
		bool set = o.set_frac > 0 && r.uniform() < o.set_frac;
		n.top += rank < top_ranks;
		if (set)
			redis_conn::append_command(cmd, { "SET", key_name(key), value_of(key, o.value_bytes) });
		else
			redis_conn::append_command(cmd, { "GET", key_name(key) });
		sent.push_back({ key, set });
	}
	c.send(cmd);
	for (const auto &[key, set] : sent) {
		reply rep = c.read();
		if (rep.type == '-') {
			n.errors++;
			if (n.first_error.empty())
				n.first_error = rep.text;
		} else if (set) {
			n.sets++;
			n.errors += rep.type != '+';
		} else {
			n.gets++;
			if (rep.nil)
				n.misses++;
			else if (rep.type != '$' || rep.text != value_of(key, o.value_bytes))
				n.wrong++;
		}
	}
}

// INFO's "name:value" lines of one section.
json info(redis_conn &c, const std::string &section, const std::vector<std::string> &want)
{
	json out = json::object();
	reply r = c.call({ "INFO", section });
	std::stringstream in(r.text);
	std::string line;

	while (std::getline(in, line)) {
		if (!line.empty() && line.back() == '\r')
			line.pop_back();
		auto colon = line.find(':');
		if (colon == std::string::npos)
			continue;
		std::string k = line.substr(0, colon), v = line.substr(colon + 1);
		if (std::find(want.begin(), want.end(), k) == want.end())
			continue;
		char *end;
		double d = strtod(v.c_str(), &end);
		out[k] = *end ? json(v) : json(d);
	}
	return out;
}

int run(const options &o)
{
	const std::string where = o.socket.empty() ? o.host + ":" + std::to_string(o.port)
						   : "unix:" + o.socket;
	rng r(o.seed);
	const std::vector<uint32_t> perm = seeded_permutation(o.keys, r);
	const alias_table table(zipf_weights(o.keys, o.zipf));
	const uint32_t top_ranks = std::max<uint32_t>(1, (o.keys + 99) / 100);

	// Our tables, buffers and code on DRAM in every row whatever the tiering does,
	// as cxlt-bench-zipf's: the server is what is measured.
	if (o.mlock && mlockall(MCL_CURRENT | MCL_FUTURE))
		throw conn_error(std::string("mlockall: ") + strerror(errno));

	redis_conn c(o, where);
	// Phase 1: the keyspace, in key order.
	const double l0 = now();
	for (uint32_t k = 0; k < o.keys;) {
		std::string cmd;
		uint32_t end = std::min(o.keys, k + o.pipeline);
		for (uint32_t i = k; i < end; i++)
			redis_conn::append_command(cmd, { "SET", key_name(i), value_of(i, o.value_bytes) });
		c.send(cmd);
		for (; k < end; k++) {
			reply rep = c.read();
			if (rep.type != '+')
				throw conn_error("SET " + key_name(k) + " failed: " + rep.text);
		}
	}
	const double load_s = now() - l0;

	// Phase 2: the warm-up, then the measured span, ops/s per interval of both.
	counts warm, n;
	json series = json::array();
	const double t0 = now(), m0 = t0 + o.warmup, m1 = m0 + o.duration;
	double next = t0 + o.interval, mstart = 0;
	uint64_t last_ops = 0;
	double last_t = t0;
	bool measuring = o.warmup <= 0;
	if (measuring)
		mstart = t0;
	for (;;) {
		double t = now();
		if (!measuring && t >= m0) {
			measuring = true;
			mstart = t;
		}
		if (measuring && t >= m1)
			break;
		counts &cur = measuring ? n : warm;
		batch(c, o, r, table, perm, top_ranks, cur);
		t = now();
		if (t >= next) {
			uint64_t ops = warm.gets + warm.sets + n.gets + n.sets;
			series.push_back({ { "t", t - t0 }, { "ops_per_s", double(ops - last_ops) / (t - last_t) },
					   { "measured", measuring } });
			last_ops = ops;
			last_t = t;
			next = t + o.interval;
		}
	}
	const double seconds = now() - mstart;
	reply dbsize = c.call({ "DBSIZE" });
	json mem = info(c, "memory", { "used_memory", "used_memory_rss", "used_memory_peak",
				       "mem_allocator", "mem_fragmentation_ratio" });
	json stats = info(c, "stats", { "keyspace_hits", "keyspace_misses" });

	const uint64_t ops = n.gets + n.sets;
	const uint64_t keys_now = dbsize.type == ':' ? strtoull(dbsize.text.c_str(), nullptr, 10) : 0;
	json hot = json::array();
	for (uint32_t k = 0; k < std::min<uint32_t>(5, o.keys); k++)
		hot.push_back(key_name(perm[k]));
	json doc;
	doc["program"] = "cxlt-bench-redisload";
	doc["server"] = where;
	doc["keys"] = o.keys;
	doc["value_bytes"] = o.value_bytes;
	doc["zipf"] = o.zipf;
	doc["seed"] = o.seed;
	doc["set_frac"] = o.set_frac;
	doc["pipeline"] = o.pipeline;
	doc["load"] = { { "seconds", load_s }, { "ops_per_s", double(o.keys) / load_s } };
	doc["warmup_s"] = o.warmup;
	doc["warmup_ops"] = warm.gets + warm.sets;
	doc["seconds"] = seconds;
	doc["ops"] = ops;
	doc["gets"] = n.gets;
	doc["sets"] = n.sets;
	doc["ops_per_s"] = double(ops) / seconds;
	doc["misses"] = n.misses + warm.misses;
	doc["wrong_values"] = n.wrong + warm.wrong;
	doc["errors"] = n.errors + warm.errors + n.misses + warm.misses + n.wrong + warm.wrong +
			(keys_now != o.keys);
	doc["first_error"] = n.first_error.empty() ? warm.first_error : n.first_error;
	doc["dbsize"] = keys_now;
	doc["top1pct_keys"] = top_ranks;
	doc["top1pct_share"] = ops ? double(n.top) / double(ops) : 0.0;
	doc["hot_keys"] = hot;
	doc["server_memory"] = mem;
	doc["server_stats"] = stats;
	doc["interval_s"] = o.interval;
	doc["series"] = series;

	if (!write_result(doc, o.out))
		throw conn_error("cannot write " + (o.out.empty() ? std::string("stdout") : o.out));
	if (doc["errors"].get<uint64_t>()) {
		std::string first = doc["first_error"].get<std::string>();

		if (!first.empty())
			first = " (first: " + first + ")";
		fprintf(stderr, "cxlt-bench-redisload: the keyspace is not intact: %llu misses, %llu wrong "
			"values, %llu error replies%s, DBSIZE %llu of %u keys\n",
			(unsigned long long)(n.misses + warm.misses), (unsigned long long)(n.wrong + warm.wrong),
			(unsigned long long)(n.errors + warm.errors), first.c_str(),
			(unsigned long long)keys_now, o.keys);
		return 1;
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	options o;
	CLI::App app{ "cxlt-bench-redisload: load a redis-server's keyspace, then Zipf-skewed "
		      "GETs (and SETs), pipelined; ops/s as JSON" };

	auto *sock = app.add_option("--socket", o.socket, "the server's Unix socket");
	auto *port = app.add_option("--port", o.port, "the server's TCP port (on --host)")
			     ->check(CLI::Range(1, 65535));
	sock->excludes(port);
	app.add_option("--host", o.host, "the server's IPv4 address with --port")->needs(port);
	app.add_option("--keys", o.keys, "keys loaded, then drawn from")->check(CLI::Range(1u, 1u << 30));
	app.add_option("--value-bytes", o.value_bytes, "bytes of every value")
		->check(CLI::Range(12u, 1u << 24));
	app.add_option("--zipf", o.zipf, "Zipf exponent s over the keys' ranks (0: uniform)")
		->check(CLI::Range(0.0, 10.0));
	app.add_option("--seed", o.seed, "seed of the permutation of the ranks and of the draws");
	app.add_option("--set-frac", o.set_frac, "share of the ops that are SETs (of the same values)")
		->check(CLI::Range(0.0, 1.0));
	app.add_option("--pipeline", o.pipeline, "commands in flight at a time")
		->check(CLI::Range(1u, 65536u));
	app.add_option("--warmup", o.warmup, "seconds of ops before the measured span")
		->check(CLI::Range(0.0, 86400.0));
	app.add_option("--duration", o.duration, "seconds of the measured span")
		->check(CLI::Range(0.1, 86400.0));
	app.add_option("--interval", o.interval, "seconds between the series' points")
		->check(CLI::Range(0.1, 3600.0));
	app.add_option("--connect-timeout", o.connect_timeout, "seconds to keep trying to connect")
		->check(CLI::Range(0.0, 3600.0));
	app.add_option("--io-timeout", o.io_timeout,
		       "seconds without progress on the connection before giving up")
		->check(CLI::Range(0.1, 3600.0));
	app.add_flag("--mlock", o.mlock, "lock our own memory (mlockall): on DRAM in every row");
	app.add_option("--out", o.out, "write the JSON here instead of stdout");
	CLI11_PARSE(app, argc, argv);
	if (o.socket.empty() && !o.port) {
		fprintf(stderr, "cxlt-bench-redisload: give the server: --socket PATH or --port N\n");
		return 2;
	}
	try {
		return run(o);
	} catch (const std::exception &e) {
		fprintf(stderr, "cxlt-bench-redisload: %s\n", e.what());
		return 2;
	}
}
