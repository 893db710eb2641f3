-- SPDX-License-Identifier: GPL-2.0
--
-- cxltier's job_submit.lua (slurm.conf: JobSubmitPlugins=lua; this file in Slurm's
-- configuration directory).  The SPANK plugin (cxltier_spank.so) gives sbatch, salloc
-- and srun --cxl-fast, --cxl-slow, --cxl-policy and --cxl-pool; slurmctld sees them
-- here, in the job's SPANK environment, and turns them into what it schedules by:
--   --cxl-slow=SIZE  the job's request of the count-only GRES cxlmem (bytes per node),
--                    so the job goes to a node whose CXL memory has room;
--   --cxl-fast=SIZE  the job's memory per node (--mem), unless it asked for more;
--   --cxl-pool=SIZE  the cluster-wide license cxlpool, in MiB (slurm.conf
--                    Licenses=cxlpool:<MiB of the shared pool>), and the node feature
--                    cxlpool (the nodes that attach the pool), so the job runs where
--                    the pool is, once running jobs leave it that much.
-- A job that also gives --gres=cxlmem:N or --licenses=cxlpool:N with another N is
-- refused: two sizes for one thing.  The plugin refuses bad sizes on the submitting
-- host already; this script checks again, since the SPANK environment comes from
-- the client.
local PREFIX = "_SLURM_SPANK_OPTION_cxltier_"
local POOL = "cxlpool" -- the license and the node feature
local MIB = 1024 * 1024
local SUFFIX = { [""] = 1, k = 1024, m = MIB, g = 1024 * MIB, t = 1024 * 1024 * MIB }

-- Bytes of "512M", "4G", "1t", "4GiB", "4096B" (the plugin's grammar: a number, an
-- optional K, M, G or T, then an optional B, or iB after a unit); nil and why for
-- anything else, 0 included.
local function parse_size(text)
	local num, unit, rest = string.match(string.lower(text), "^(%d+)([kmgt]?)(.*)$")
	if num == nil or not (rest == "" or rest == "b" or (rest == "ib" and unit ~= "")) then
		return nil, "'" .. text .. "' is not a size (such as 512M or 4G)"
	end
	local bytes = tonumber(num) * SUFFIX[unit]
	if bytes == 0 then
		return nil, "'" .. text .. "' is not a size: it must be more than 0"
	end
	-- Lua numbers are doubles: past 2^53 a size is no longer exact.
	if bytes > 2 ^ 53 then
		return nil, "'" .. text .. "' is too large"
	end
	return bytes
end

-- The job's --cxl-* options: { cxl_slow = "4G", ... }.
local function options(job_desc)
	local found = {}
	local env = job_desc.spank_job_env
	if type(env) ~= "table" then
		return found
	end
	for _, entry in pairs(env) do
		local name, value = string.match(entry, "^" .. PREFIX .. "([%w_]+)=(.*)$")
		if name then
			found[name] = value
		end
	end
	return found
end

-- The cxlmem count in a GRES request ("gres:cxlmem:1024,gres:gpu:1"), or nil.
local function cxlmem_of(tres)
	if tres == nil then
		return nil
	end
	for item in string.gmatch(tres, "[^,]+") do
		local count = string.match(item, "^gres[:/]cxlmem:(%d+)$") or
			string.match(item, "^cxlmem:(%d+)$")
		if count then
			return tonumber(count)
		end
		if string.match(item, "^gres[:/]cxlmem$") or item == "cxlmem" then
			return 1
		end
	end
	return nil
end

-- The cxlpool count in a license request ("cxlpool:160,matlab:1"; Slurm also takes
-- '*' for ':' and a name alone for 1), or nil.
local function cxlpool_of(licenses)
	if licenses == nil then
		return nil
	end
	for item in string.gmatch(licenses, "[^,]+") do
		local count = string.match(item, "^" .. POOL .. "[:*](%d+)$")
		if count then
			return tonumber(count)
		end
		if item == POOL then
			return 1
		end
	end
	return nil
end

-- @features with the feature cxlpool required too (--constraint).
local function with_pool_feature(features)
	if features == nil or features == "" then
		return POOL
	end
	for word in string.gmatch(features, "[^&]+") do
		if word == POOL then
			return features
		end
	end
	-- Anything but a plain AND list is kept whole, in parentheses.
	if string.find(features, "[|%[%]()*]") then
		return "(" .. features .. ")&" .. POOL
	end
	return features .. "&" .. POOL
end

-- The bytes of the job's option NAME ("cxl_slow"): nil when it was not given, false
-- (the user told why) when it is not a size.
local function size_option(opt, name)
	if opt[name] == nil then
		return nil
	end
	local bytes, why = parse_size(opt[name])
	if bytes == nil then
		slurm.log_user("cxltier: --%s: %s", (string.gsub(name, "_", "-")), why)
		return false
	end
	return bytes
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	local opt = options(job_desc)
	local slow, fast = size_option(opt, "cxl_slow"), size_option(opt, "cxl_fast")
	local pool = size_option(opt, "cxl_pool")
	if slow == false or fast == false or pool == false then
		return slurm.ERROR
	end
	if slow then
		local asked = cxlmem_of(job_desc.tres_per_node)
		if asked and asked ~= slow then
			slurm.log_user("cxltier: --gres=cxlmem:%d disagrees with --cxl-slow=%s (%d bytes): give one of them",
				asked, opt.cxl_slow, slow)
			return slurm.ERROR
		end
		if asked == nil then
			local req = string.format("gres:cxlmem:%d", slow)
			if job_desc.tres_per_node and job_desc.tres_per_node ~= "" then
				req = job_desc.tres_per_node .. "," .. req
			end
			job_desc.tres_per_node = req
		end
	end
	if fast then
		local mib = math.ceil(fast / MIB)
		local mem = job_desc.pn_min_memory
		if mem == nil or mem == slurm.NO_VAL64 or mem < mib then
			job_desc.pn_min_memory = mib
		end
	end
	if pool then
		local mib = math.ceil(pool / MIB)
		local licenses = job_desc.licenses
		if licenses and string.find(licenses, "|", 1, true) then
			slurm.log_user("cxltier: --cxl-pool cannot be added to --licenses=%s (alternatives with '|'): give cxlpool:%d there instead",
				licenses, mib)
			return slurm.ERROR
		end
		local asked = cxlpool_of(licenses)
		if asked and asked ~= mib then
			slurm.log_user("cxltier: --licenses=%s:%d disagrees with --cxl-pool=%s (%d MiB): give one of them",
				POOL, asked, opt.cxl_pool, mib)
			return slurm.ERROR
		end
		if asked == nil then
			local req = string.format("%s:%d", POOL, mib)
			if licenses and licenses ~= "" then
				req = licenses .. "," .. req
			end
			job_desc.licenses = req
		end
		job_desc.features = with_pool_feature(job_desc.features)
	end
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return slurm.SUCCESS
