// SPDX-License-Identifier: GPL-2.0
// cxltierctl events: the module's event log (fences, pages fenced and replaced,
// poison, drains, restores) as a table or JSON, from a sequence number on, and with
// --follow as the records come, until interrupted.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <ctime>
#include <memory>

#include <fmt/core.h>

#include "cxltierctl.hpp"

namespace cxltierctl {

namespace {

struct events_options {
	bool follow = false;
	bool json_out = false;
	std::uint64_t since = 0; // 0: from the oldest record kept
};

// "2026-01-01 00:00:00.000", local time.
std::string time_text(std::uint64_t ns)
{
	auto secs = static_cast<std::time_t>(ns / 1000000000);
	struct tm tm;
	if (!::localtime_r(&secs, &tm))
		return std::to_string(ns);
	char buf[32];
	std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	return fmt::format("{}.{:03}", buf, ns / 1000000 % 1000);
}

// "850 ns", "12.3 us", "1.5 ms", "2.500 s"; "-" for none.
std::string duration_text(std::uint64_t ns)
{
	if (!ns)
		return "-";
	if (ns >= 1000000000)
		return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
	if (ns >= 1000000)
		return fmt::format("{:.1f} ms", static_cast<double>(ns) / 1e6);
	if (ns >= 1000)
		return fmt::format("{:.1f} us", static_cast<double>(ns) / 1e3);
	return fmt::format("{} ns", ns);
}

// Where: "kv@0x2000" for a region page, "hpa 0x390001000" for poison, else "-".
std::string where_text(const cxltier_event_list *l, std::size_t i)
{
	const char *region = cxltier_event_list_get_region(l, i);
	std::uint64_t offset = cxltier_event_list_get_offset(l, i);
	if (*region)
		return fmt::format("{}@{:#x}", region, offset);
	if (cxltier_event_list_get_region_id(l, i))
		return fmt::format("id {}@{:#x}", cxltier_event_list_get_region_id(l, i), offset);
	if (cxltier_event_list_get_type(l, i) == CXLTIER_EVENT_TYPE_POISON && offset)
		return fmt::format("hpa {:#x}", offset);
	return "-";
}

std::string pages_text(const cxltier_event_list *l, std::size_t i)
{
	std::uint64_t pages = cxltier_event_list_get_pages(l, i);
	std::uint64_t ram = cxltier_event_list_get_ram_pages(l, i);
	if (!pages)
		return "-";
	return ram ? fmt::format("{} ({} ram)", pages, ram) : std::to_string(pages);
}

std::vector<std::string> row(const cxltier_event_list *l, std::size_t i)
{
	const char *blade = cxltier_event_list_get_blade(l, i);
	return {
		std::to_string(cxltier_event_list_get_seq(l, i)),
		time_text(cxltier_event_list_get_time_ns(l, i)),
		cxltier_event_type_name(cxltier_event_list_get_type(l, i)),
		cxltier_event_cause_name(cxltier_event_list_get_cause(l, i)),
		*blade ? blade : "-",
		where_text(l, i),
		pages_text(l, i),
		duration_text(cxltier_event_list_get_duration_ns(l, i)),
	};
}

const std::vector<table::column> columns = {
	{"SEQ", true}, {"TIME"},	{"TYPE"},	   {"CAUSE"},
	{"BLADE"},     {"REGION@OFFSET"}, {"PAGES", true}, {"DURATION", true},
};

json event_json(const cxltier_event_list *l, std::size_t i)
{
	auto text_or_null = [](const char *s) { return *s ? json(s) : json(nullptr); };
	std::uint32_t id = cxltier_event_list_get_region_id(l, i);
	return {
		{"seq", cxltier_event_list_get_seq(l, i)},
		{"time_ns", cxltier_event_list_get_time_ns(l, i)},
		{"type", cxltier_event_type_name(cxltier_event_list_get_type(l, i))},
		{"cause", cxltier_event_cause_name(cxltier_event_list_get_cause(l, i))},
		{"blade", text_or_null(cxltier_event_list_get_blade(l, i))},
		{"region_id", id ? json(id) : json(nullptr)},
		{"region", text_or_null(cxltier_event_list_get_region(l, i))},
		{"offset", cxltier_event_list_get_offset(l, i)},
		{"pages", cxltier_event_list_get_pages(l, i)},
		{"ram_pages", cxltier_event_list_get_ram_pages(l, i)},
		{"duration_ns", cxltier_event_list_get_duration_ns(l, i)},
	};
}

cxltier::event_list_ptr read(cxltier_ctx *ctx, std::uint64_t seq, unsigned int flags, int &err)
{
	auto l = cxltier::read_events(ctx, seq, flags, err);
	if (!l && err != -EINTR)
		throw fatal(library_error(ctx, err));
	return l;
}

std::string lost_note(std::uint64_t lost)
{
	return fmt::format("note: {} record{} asked for {} no longer kept (the log keeps the newest "
			   "{})",
			   lost, lost == 1 ? "" : "s", lost == 1 ? "was" : "were", CXLTIER_EVENT_LOG_SIZE);
}

// Everything from --since on, at once.
void events_once(cxltier_ctx *ctx, const events_options &o)
{
	std::vector<cxltier::event_list_ptr> lists;
	std::uint64_t seq = o.since, lost = 0;
	for (;;) {
		int err = 0;
		auto l = read(ctx, seq, 0, err);
		if (lists.empty())
			lost = cxltier_event_list_get_lost(l.get());
		seq = cxltier_event_list_get_next_seq(l.get());
		if (!cxltier_event_list_get_count(l.get()))
			break;
		lists.push_back(std::move(l));
	}

	if (o.json_out) {
		json doc = list_document(ctx);
		doc["next_seq"] = seq;
		doc["lost"] = lost;
		json arr = json::array();
		for (const auto &l : lists)
			for (std::size_t i = 0; i < cxltier_event_list_get_count(l.get()); i++)
				arr.push_back(event_json(l.get(), i));
		doc["events"] = arr;
		print_json(doc);
		return;
	}
	if (lost)
		fmt::print("{}\n", lost_note(lost));
	if (lists.empty()) {
		fmt::print("No events.\n");
		return;
	}
	table t(columns);
	for (const auto &l : lists)
		for (std::size_t i = 0; i < cxltier_event_list_get_count(l.get()); i++)
			t.add(row(l.get(), i));
	t.print();
}

// --- --follow -----------------------------------------------------------------------

// While the read waits, a signal ends the program at once (all output is flushed
// by then); otherwise it is noted and the loop ends after what it is printing.
// Either way the exit status is 0: following until interrupted is the normal end.
volatile std::sig_atomic_t follow_quit = 0;
volatile std::sig_atomic_t follow_waiting = 0;

extern "C" void on_follow_signal(int sig)
{
	if (follow_waiting)
		::_exit(0);
	follow_quit = sig;
}

class follow_signals {
public:
	follow_signals()
	{
		follow_quit = 0;
		follow_waiting = 0;
		struct sigaction sa = {};
		sa.sa_handler = on_follow_signal; // no SA_RESTART: the wait must end
		sigemptyset(&sa.sa_mask);
		for (std::size_t i = 0; i < std::size(signals); i++)
			::sigaction(signals[i], &sa, &old_[i]);
	}
	~follow_signals()
	{
		for (std::size_t i = 0; i < std::size(signals); i++)
			::sigaction(signals[i], &old_[i], nullptr);
	}
	follow_signals(const follow_signals &) = delete;
	follow_signals &operator=(const follow_signals &) = delete;

private:
	static constexpr int signals[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction old_[std::size(signals)];
};

// Columns of fixed width, as the rows come one by one.
std::string follow_line(const std::vector<std::string> &cells)
{
	static constexpr std::size_t width[] = {6, 23, 10, 13, 6, 20, 16, 0};
	std::string out;
	for (std::size_t c = 0; c < cells.size(); c++) {
		if (c)
			out += "  ";
		if (!width[c])
			out += fmt::format("{:>10}", cells[c]);
		else if (columns[c].right)
			out += fmt::format("{:>{}}", cells[c], width[c]);
		else
			out += fmt::format("{:<{}}", cells[c], width[c]);
	}
	return out;
}

void events_follow(cxltier_ctx *ctx, const events_options &o)
{
	follow_signals signals;
	if (!o.json_out) {
		std::vector<std::string> header;
		for (const auto &c : columns)
			header.push_back(c.header);
		fmt::print("{}\n", follow_line(header));
	}
	std::uint64_t seq = o.since;
	while (!follow_quit) {
		std::fflush(stdout);
		follow_waiting = 1;
		if (follow_quit)
			break;
		int err = 0;
		auto l = read(ctx, seq, CXLTIER_EVENT_READ_WAIT, err);
		follow_waiting = 0;
		if (!l) // -EINTR
			continue;
		if (std::uint64_t lost = cxltier_event_list_get_lost(l.get())) {
			std::fflush(stdout);
			fmt::print(stderr, "{}\n", lost_note(lost));
		}
		for (std::size_t i = 0; i < cxltier_event_list_get_count(l.get()); i++) {
			if (o.json_out)
				fmt::print("{}\n", event_json(l.get(), i).dump(-1, ' ', false,
									  json::error_handler_t::replace));
			else
				fmt::print("{}\n", follow_line(row(l.get(), i)));
		}
		seq = cxltier_event_list_get_next_seq(l.get());
	}
	std::fflush(stdout);
}

void events(const events_options &o)
{
	auto ctx = open_ctx();
	if (o.follow)
		events_follow(ctx.get(), o);
	else
		events_once(ctx.get(), o);
}

} // namespace

void add_events_command(CLI::App &app, action &run)
{
	auto *cmd = app.add_subcommand(
		"events", "The module's event log: fences, pages fenced and replaced, poison, drains");
	auto o = std::make_shared<events_options>();
	cmd->add_flag("--follow,-f", o->follow, "Print records as they come, until interrupted");
	cmd->add_flag("-j,--json", o->json_out,
		      "Print JSON: one object, or with --follow one object per record and line");
	cmd->add_option("--since", o->since, "Start at record SEQ (default: the oldest kept)");
	cmd->callback([&run, o] { run = [o] { events(*o); }; });
}

} // namespace cxltierctl
