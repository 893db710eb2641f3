-- SPDX-License-Identifier: GPL-2.0
--
-- tools/slurm/job_submit.lua run by Lua 5.1, as slurmctld runs it (job_submit/lua),
-- with a stand-in for slurmctld's "slurm" table:
--   lua5.1 job_submit_test.lua PATH/TO/job_submit.lua
-- Prints TAP; exits 1 when a case fails.
local NO_VAL64 = 0xfffffffffffffffe
local said
slurm = {
	SUCCESS = 0, ERROR = -1, NO_VAL64 = NO_VAL64,
	log_user = function(fmt, ...) said = string.format(fmt, ...) end,
}
assert(dofile(arg[1]) == slurm.SUCCESS, "the script does not load")

local n, failed = 0, 0
local function check(what, ok, detail)
	n = n + 1
	if ok then
		print("ok " .. n .. " " .. what)
	else
		failed = failed + 1
		print("not ok " .. n .. " " .. what .. (detail and (" # " .. detail) or ""))
	end
end

-- submit(options, job): the job description after slurm_job_submit, its return code
-- and what it told the user.
local function submit(options, job)
	job = job or {}
	local env = { "SOMETHING_ELSE=1" }
	for k, v in pairs(options) do
		table.insert(env, "_SLURM_SPANK_OPTION_cxltier_" .. k .. "=" .. v)
	end
	job.spank_job_env = env
	job.pn_min_memory = job.pn_min_memory or NO_VAL64
	said = nil
	local rc = slurm_job_submit(job, {}, 0)
	return job, rc, said
end

local job, rc, msg = submit({})
check("a job without --cxl-* is left alone", rc == 0 and job.tres_per_node == nil
	and job.pn_min_memory == NO_VAL64)
job, rc = submit({ cxl_slow = "4G" })
check("--cxl-slow=4G asks gres:cxlmem:4294967296", rc == 0 and
	job.tres_per_node == "gres:cxlmem:4294967296", tostring(job.tres_per_node))
job, rc = submit({ cxl_slow = "512M" }, { tres_per_node = "gres:gpu:1" })
check("it is added to another GRES request", rc == 0 and
	job.tres_per_node == "gres:gpu:1,gres:cxlmem:536870912", tostring(job.tres_per_node))
job, rc, msg = submit({ cxl_slow = "16M" }, { tres_per_node = "gres:cxlmem:1024" })
check("a --gres=cxlmem that disagrees is refused, saying so", rc == slurm.ERROR and
	msg and msg:find("disagrees") ~= nil, tostring(msg))
job, rc = submit({ cxl_slow = "16M" }, { tres_per_node = "gres:cxlmem:16777216" })
check("one that agrees is kept as it is", rc == 0 and
	job.tres_per_node == "gres:cxlmem:16777216", tostring(job.tres_per_node))
for _, good in ipairs({ "4096B", "4GiB", "1t", "2kb", "7" }) do
	job, rc, msg = submit({ cxl_slow = good })
	check("size " .. good .. " is taken", rc == 0, tostring(msg))
end
for _, bad in ipairs({ "4X", "0", "-1G", "4gi", "", "G", "1.5G", "99999999999T" }) do
	job, rc, msg = submit({ cxl_slow = bad })
	check("size '" .. bad .. "' is refused with a reason", rc == slurm.ERROR and msg ~= nil,
		tostring(msg))
end
job, rc = submit({ cxl_fast = "1G" })
check("--cxl-fast=1G makes --mem 1024 (MiB)", rc == 0 and job.pn_min_memory == 1024,
	tostring(job.pn_min_memory))
job, rc = submit({ cxl_fast = "1G" }, { pn_min_memory = 2048 })
check("a larger --mem stays", rc == 0 and job.pn_min_memory == 2048,
	tostring(job.pn_min_memory))
job, rc = submit({ cxl_fast = "1500K" }, { pn_min_memory = 1 })
check("a smaller one is raised, rounded up to MiB", rc == 0 and job.pn_min_memory == 2,
	tostring(job.pn_min_memory))
job, rc, msg = submit({ cxl_fast = "lots" })
check("a bad --cxl-fast is refused", rc == slurm.ERROR and msg and msg:find("cxl%-fast") ~= nil,
	tostring(msg))

-- --cxl-pool: the cluster-wide license cxlpool (MiB) and the node feature cxlpool.
job, rc = submit({ cxl_pool = "160M" })
check("--cxl-pool=160M asks license cxlpool:160 on nodes with feature cxlpool", rc == 0 and
	job.licenses == "cxlpool:160" and job.features == "cxlpool",
	tostring(job.licenses) .. " " .. tostring(job.features))
job, rc = submit({ cxl_pool = "1500K" })
check("the license is in MiB, rounded up", rc == 0 and job.licenses == "cxlpool:2",
	tostring(job.licenses))
job, rc = submit({ cxl_pool = "1G" }, { licenses = "matlab:2", features = "gpu&ib" })
check("it is added to other licenses and features", rc == 0 and
	job.licenses == "matlab:2,cxlpool:1024" and job.features == "gpu&ib&cxlpool",
	tostring(job.licenses) .. " " .. tostring(job.features))
job, rc = submit({ cxl_pool = "1G" }, { features = "a|b" })
check("features with alternatives are kept whole", rc == 0 and job.features == "(a|b)&cxlpool",
	tostring(job.features))
job, rc = submit({ cxl_pool = "1G" }, { features = "[rack1|rack2]" })
check("and so are matching ORs", rc == 0 and job.features == "([rack1|rack2])&cxlpool",
	tostring(job.features))
job, rc = submit({ cxl_pool = "1G" }, { features = "ib&cxlpool", licenses = "cxlpool*1024" })
check("a feature and a license that agree are kept as they are", rc == 0 and
	job.features == "ib&cxlpool" and job.licenses == "cxlpool*1024",
	tostring(job.licenses) .. " " .. tostring(job.features))
job, rc, msg = submit({ cxl_pool = "1G" }, { licenses = "cxlpool:5" })
check("a --licenses=cxlpool that disagrees is refused, saying so", rc == slurm.ERROR and
	msg and msg:find("disagrees") ~= nil, tostring(msg))
job, rc, msg = submit({ cxl_pool = "1G" }, { licenses = "a:1|b:1" })
check("licenses with alternatives are refused, saying what to do", rc == slurm.ERROR and
	msg and msg:find("cxlpool:1024 there") ~= nil, tostring(msg))
job, rc, msg = submit({ cxl_pool = "-1" })
check("a bad --cxl-pool is refused", rc == slurm.ERROR and msg and msg:find("cxl%-pool") ~= nil,
	tostring(msg))
job, rc = submit({ cxl_slow = "16M" })
check("a job without --cxl-pool gets no license", rc == 0 and job.licenses == nil and
	job.features == nil)
check("slurm_job_modify accepts", slurm_job_modify({}, {}, {}, 0) == slurm.SUCCESS)

print("1.." .. n)
os.exit(failed == 0 and 0 or 1)
