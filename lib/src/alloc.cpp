// SPDX-License-Identifier: GPL-2.0
// cxltier_alloc: many small objects in a global region.  The heap is memkind's
// fixed-area kind (memkind_create_fixed(), jemalloc underneath) over a page-aligned
// range of the region's mapping in this process: a proven allocator with size
// classes, thread caches and purging, rather than a free list of our own.
//
// memkind purges freed extents with madvise(MADV_DONTNEED); on a region mapping
// that only drops this process's page table entries, the pages stay in the region
// and come back, with their old contents, at the next touch.  calloc therefore
// zeroes itself instead of trusting that purged memory reads as zero.
#include <cerrno>
#include <cstring>
#include <memkind.h>
#include <memory>
#include <new>
#include <string>
#include <unistd.h>

#include "ctx.hpp"
#include "export.hpp"
#include "region.hpp"

struct cxltier_alloc {
	cxltier_region *region;
	memkind_t kind;
};

using namespace cxltier::internal;

CXLTIER_EXPORT int cxltier_alloc_create(cxltier_region *region, uint64_t offset, uint64_t size,
					cxltier_alloc **alloc)
{
	if (!region || !alloc)
		return -EINVAL;
	*alloc = nullptr;
	cxltier_ctx *ctx = region->ctx;
	try {
		auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
		std::string what = "allocator on region '" + region->name + "'";
		if (!size && offset < region->size)
			size = region->size - offset;
		if (offset % page || size % page || !size || offset > region->size ||
		    size > region->size - offset)
			return fail(ctx, error{-EINVAL, what + ": range " + std::to_string(offset) +
								"+" + std::to_string(size) +
								" is not page-aligned within the region's " +
								std::to_string(region->size) + " bytes"});
		if (!(region->access & CXLTIER_REGION_WRITE))
			return fail(ctx, error{-EINVAL, what + ": the region is open read-only"});
		void *base;
		int rc = cxltier_region_map(region, &base);
		if (rc)
			return rc;
		auto a = std::make_unique<cxltier_alloc>();
		a->region = region;
		rc = memkind_create_fixed(static_cast<char *>(base) + offset, size, &a->kind);
		if (rc != MEMKIND_SUCCESS) {
			char msg[MEMKIND_ERROR_MESSAGE_SIZE];
			memkind_error_message(rc, msg, sizeof(msg));
			return fail(ctx, error{-ENOMEM, what + ": " + msg});
		}
		*alloc = a.release();
		return 0;
	} catch (...) {
		return -ENOMEM;
	}
}

CXLTIER_EXPORT void cxltier_alloc_destroy(cxltier_alloc *alloc)
{
	if (!alloc)
		return;
	memkind_destroy_kind(alloc->kind);
	delete alloc;
}

CXLTIER_EXPORT void *cxltier_alloc_malloc(cxltier_alloc *alloc, size_t size)
{
	void *p = memkind_malloc(alloc->kind, size);
	if (!p)
		errno = ENOMEM;
	return p;
}

CXLTIER_EXPORT void *cxltier_alloc_calloc(cxltier_alloc *alloc, size_t nmemb, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(nmemb, size, &bytes)) {
		errno = ENOMEM;
		return nullptr;
	}
	void *p = cxltier_alloc_malloc(alloc, bytes);
	if (p)
		std::memset(p, 0, bytes);
	return p;
}

CXLTIER_EXPORT int cxltier_alloc_aligned(cxltier_alloc *alloc, size_t align, size_t size,
					 void **ptr)
{
	if (!alloc || !ptr || align < sizeof(void *) || (align & (align - 1)))
		return -EINVAL;
	int rc = memkind_posix_memalign(alloc->kind, ptr, align, size);
	return rc ? -rc : 0;
}

CXLTIER_EXPORT void cxltier_alloc_free(cxltier_alloc *alloc, void *ptr)
{
	if (ptr)
		memkind_free(alloc->kind, ptr);
}

CXLTIER_EXPORT size_t cxltier_alloc_usable_size(cxltier_alloc *alloc, void *ptr)
{
	return ptr ? memkind_malloc_usable_size(alloc->kind, ptr) : 0;
}

CXLTIER_EXPORT cxltier_region *cxltier_alloc_get_region(const cxltier_alloc *alloc)
{
	return alloc->region;
}
