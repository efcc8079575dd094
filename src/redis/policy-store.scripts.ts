// Lua for RedisPolicyStore. Each script touches one key (one Cluster slot); a channel is an argument.
// Time comes from the Redis server (TIME), so that instances whose clocks differ count alike.

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// A token bucket as GCRA: the key holds the theoretical arrival time of the next call. ARGV: interval
// (window / limit, ms), window (ms). Returns { allowed, remaining, retryAfterMs }.
export const CONSUME = `${NOW}
local interval = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local next = tat + interval
-- A microsecond of slack: the time is kept to the microsecond, so that a burst of \`limit\` calls fits.
if next - window > now + 0.001 then return { 0, 0, tostring(next - window - now) } end
redis.call('SET', KEYS[1], string.format('%.3f', next), 'PX', math.max(1, math.ceil(next - now)))
return { 1, math.floor((now + window - next) / interval + 0.000001), '0' }`;

// ARGV: fingerprint, runningMs, a token for the claimant. Returns { status [, value] }.
export const CLAIM = `
local fingerprint = redis.call('HGET', KEYS[1], 'fingerprint')
if not fingerprint then
  redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'state', 'running', 'token', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return { 'claimed' }
end
if fingerprint ~= ARGV[1] then return { 'conflict' } end
if redis.call('HGET', KEYS[1], 'state') == 'done' then return { 'done', redis.call('HGET', KEYS[1], 'value') } end
return { 'running' }`;

// ARGV: '1' to keep the value (else the claim is dropped), value, ttlMs, channel, the claimant's token.
export const SETTLE = `
if redis.call('HGET', KEYS[1], 'state') == 'running' and redis.call('HGET', KEYS[1], 'token') == ARGV[5] then
  if ARGV[1] == '1' then
    redis.call('HSET', KEYS[1], 'state', 'done', 'value', ARGV[2])
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
  else
    redis.call('DEL', KEYS[1])
  end
end
redis.call('PUBLISH', ARGV[4], 'settled')
return 1`;

// A tag's token, made (random, from ARGV[1]) when it has none; its lifetime renewed (ARGV[2] ms).
export const TAG_TOKEN = `
local token = redis.call('GET', KEYS[1])
if not token then
  token = ARGV[1]
  redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
else
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return token`;

// Slots as a sorted set of permits scored by when they lapse. ARGV: max, leaseMs, permit.
export const ACQUIRE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.max(redis.call('PTTL', KEYS[1]), tonumber(ARGV[2])))
return 1`;

// ARGV: permit, channel.
export const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[2], 'released')
return 1`;

// How long a waiter for a slot may wait before one lapses: 0 when one is free now. ARGV: max.
export const NEXT_LAPSE = `${NOW}
if redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') < tonumber(ARGV[1]) then return 0 end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #first == 0 then return 0 end
return math.max(0, math.ceil(tonumber(first[2]) - now))`;
