/**
 * The RedisTaskStore's Lua scripts: each status change or append is one atomic step across instances.
 * Every key a script names shares one hash slot (Redis Cluster runs a script on one node); the
 * channel a script publishes to comes as an argument.
 */

export const CREATE = `
local seq = redis.call('INCR', KEYS[3])
if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'status', 'working', 'createdAt', ARGV[3], 'lastUpdatedAt', ARGV[3], 'ttl', ARGV[4], 'version', 1, 'lastSeqNr', 0, 'seq', seq)
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'pollInterval', ARGV[5]) end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'statusMessage', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
redis.call('SET', KEYS[4], '1', 'PX', tonumber(ARGV[4]) + tonumber(ARGV[7]))
redis.call('ZADD', KEYS[5], tonumber(ARGV[8]) + tonumber(ARGV[4]), ARGV[1])
if redis.call('PTTL', KEYS[5]) < tonumber(ARGV[4]) then redis.call('PEXPIRE', KEYS[5], ARGV[4]) end
return redis.call('HGETALL', KEYS[1])`;

// One atomic step for every status change: a terminal task never changes, even with racing instances.
export const TRANSITION = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return nil end
local from = redis.call('HGET', KEYS[1], 'status')
if from == 'completed' or from == 'failed' or from == 'cancelled' then return redis.error_reply('TERMINAL ' .. from) end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'lastUpdatedAt', ARGV[4])
if string.sub(ARGV[3], 1, 1) == '+' then redis.call('HSET', KEYS[1], 'statusMessage', string.sub(ARGV[3], 2)) else redis.call('HDEL', KEYS[1], 'statusMessage') end
if ARGV[5] ~= '' then redis.call('SET', KEYS[2], ARGV[5], 'PX', redis.call('PTTL', KEYS[1])) end
redis.call('HINCRBY', KEYS[1], 'version', 1)
if ARGV[2] == 'completed' or ARGV[2] == 'failed' or ARGV[2] == 'cancelled' then redis.call('ZREM', KEYS[3], ARGV[6]) end
redis.call('PUBLISH', ARGV[7], 'changed')
return redis.call('HGETALL', KEYS[1])`;

export const APPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return {} end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'completed' or status == 'failed' or status == 'cancelled' then return redis.error_reply('TERMINAL ' .. status) end
local out = {}
for i = 3, #ARGV do
  local n = redis.call('HINCRBY', KEYS[1], 'lastSeqNr', 1)
  local segment = '{"seqNr":' .. n .. ',' .. string.sub(ARGV[i], 2)
  redis.call('RPUSH', KEYS[2], segment)
  out[#out + 1] = segment
end
redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('PUBLISH', ARGV[2], 'changed')
return out`;

// Takes a lapsed lease, once: a lease its instance renewed after the reaper read it stays.
export const TAKE_LAPSED = `
local deadline = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not deadline or tonumber(deadline) > tonumber(ARGV[2]) then return 0 end
return redis.call('ZREM', KEYS[1], ARGV[1])`;
