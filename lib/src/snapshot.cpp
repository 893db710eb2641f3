// SPDX-License-Identifier: GPL-2.0
#include "snapshot.hpp"

#include <algorithm>
#include <cerrno>

#include "ctx.hpp"

namespace cxltier::internal {

namespace {

error module_missing(const fs::path &root)
{
	return {-ENOENT, "cxltier module not loaded (" + root.string() + " missing)"};
}

bool still_there(const fs::path &p)
{
	std::error_code ec;
	return fs::exists(p, ec);
}

// The module rebuilds its tree while devices come and go, so a file can vanish
// under us: kernfs answers ENOENT to an open of a removed file, ENODEV to a read of
// one removed after the open.  If the whole root went away the module was unloaded;
// if only the object's directory did, the object was removed and is simply not in
// this snapshot.  A file missing from a directory that is still there is a
// malformed tree, reported as such (-EBADMSG), never as "not loaded".
bool may_have_vanished(int code)
{
	return code == -ENOENT || code == -ENODEV;
}

enum class missing { module, object, file };

missing why_missing(const fs::path &root, const fs::path &dir)
{
	if (!still_there(root))
		return missing::module;
	if (!still_there(dir))
		return missing::object;
	return missing::file;
}

template <class T, class Loader>
result<std::vector<T>> load_all(cxltier_ctx *ctx, const fs::path &root, const char *kind,
				Loader load)
{
	auto names = list_subdirs(root / kind);
	if (!names)
		return std::move(names).err();
	std::vector<T> objs;
	objs.reserve(names->size());
	for (const auto &name : *names) {
		fs::path dir = root / kind / name;
		auto r = load(ctx, dir);
		if (r) {
			objs.push_back(std::move(r).value());
			continue;
		}
		if (!may_have_vanished(r.err().code))
			return std::move(r).err();
		switch (why_missing(root, dir)) {
		case missing::module:
			return module_missing(root);
		case missing::object:
			continue;
		case missing::file:
			if (r.err().code == -ENOENT)
				return error{-EBADMSG, r.err().msg};
			return std::move(r).err();
		}
	}
	return objs;
}

} // namespace

result<std::unique_ptr<snapshot>> load_snapshot(cxltier_ctx *ctx, const fs::path &root)
{
	std::error_code ec;
	auto st = fs::status(root, ec);
	if (st.type() == fs::file_type::not_found)
		return module_missing(root);
	if (ec)
		return error{-ec.value(), root.string() + ": " + errno_text(ec.value())};
	if (st.type() != fs::file_type::directory)
		return error{-ENOTDIR, root.string() + ": not a directory"};

	auto snap = std::make_unique<snapshot>();

	// A layout of another version may have changed the meaning of any file, so
	// nothing else is read unless the version is one this library knows.
	attr_reader top(root);
	auto version = top.s64_dec("abi_version", 0, INT32_MAX);
	if (auto &f = top.failure()) {
		if (!may_have_vanished(f->code))
			return *f;
		if (why_missing(root, root) == missing::module)
			return module_missing(root);
		return f->code == -ENOENT ? error{-EBADMSG, f->msg} : *f;
	}
	if (version != CXLTIER_SYSFS_ABI_VERSION)
		return error{-EPROTONOSUPPORT,
			     (root / "abi_version").string() + ": sysfs ABI version " +
				     std::to_string(version) + " is not supported (libcxltier reads version " +
				     std::to_string(CXLTIER_SYSFS_ABI_VERSION) + ")"};
	snap->abi_version = static_cast<unsigned int>(version);

	auto blades = load_all<cxltier_blade>(ctx, root, "blades", load_blade);
	if (!blades)
		return std::move(blades).err();
	snap->blades = std::move(blades).value();

	auto tiers = load_all<cxltier_tier>(ctx, root, "tiers", load_tier);
	if (!tiers)
		return std::move(tiers).err();
	snap->tiers = std::move(tiers).value();

	auto pools = load_all<cxltier_pool>(ctx, root, "pools", load_pool);
	if (!pools)
		return std::move(pools).err();
	snap->pools = std::move(pools).value();
	for (auto &p : snap->pools)
		link_pool(p);

	// A missing blades/, tiers/ or pools/ reads as empty; make sure that is not because
	// the module went away half-way through.
	if (!still_there(root))
		return module_missing(root);

	// The CXL core's side of blades, tiers and regions (libcxl).
	auto topo = ctx->platform->read_cxl();
	if (!topo)
		return std::move(topo).err();
	std::sort(topo->regions.begin(), topo->regions.end(),
		  [](const cxl_region_data &a, const cxl_region_data &b) {
			  return natural_less(a.name, b.name);
		  });
	for (auto &b : snap->blades)
		join_blade(b, *topo);
	for (auto &t : snap->tiers)
		join_tier(t, topo->regions, snap->blades);
	snap->cxl_regions.reserve(topo->regions.size());
	for (const auto &r : topo->regions)
		snap->cxl_regions.push_back(make_cxl_region(ctx, r, snap->tiers));

	// NUMA nodes (libnuma), with the tiers' nodes, which may be newer than the
	// process, named; the rest of their facts from the standard sysfs.
	std::vector<int> known;
	for (const auto &t : snap->tiers)
		known.push_back(t.node);
	auto found = ctx->platform->read_nodes(known);
	if (!found)
		return std::move(found).err();
	auto numa = load_nodes(ctx, std_sysfs_root(), *found);
	if (!numa)
		return std::move(numa).err();
	snap->numa = std::move(numa).value();
	return snap;
}

} // namespace cxltier::internal
