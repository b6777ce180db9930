"""The event store's Lua scripts, each run atomically: a game's (append at an expected version,
create, load, drop, dump, keep an audit) touch only its slot, as its keys share its hash tag;
the others hold a client's place under its cap and take a seed ticket."""

# Lua helpers every game script shares. A stream entry holds the event's JSON (`e`, first)
# and, on a batch's first event, the id of the command that appended it (`c`). The chain hash
# is read from the JSON (a field of its own would cost memory on every event): an event
# is sealed with its hash last, so its compact JSON ends `"hash":"<64 hex>"}` (entries written
# before orjson wrote them: `"hash": "<64 hex>"}`) and the hash is sliced off the end; any
# other JSON is decoded.
_LUA_HASH_AT = """
local function hash_at(v)
  local found = redis.call('XRANGE', KEYS[1], v .. '-0', v .. '-0')[1]
  if not found then return false end
  local e = found[2][2]
  if string.sub(e, -2) == '"}' then
    if string.sub(e, -74, -67) == '"hash":"' or string.sub(e, -75, -67) == '"hash": "' then
      return string.sub(e, -66, -3)
    end
  end
  return cjson.decode(e)['hash']
end
"""

# Finds the command `cmd` among the entries after version `after` (a retried append whose first
# try was applied, its reply lost): the version its batch of `n` events reached, else false.
_LUA_DONE = """
local function done_at(after, cmd, n)
  if cmd == '' then return false end
  local entries = redis.call('XRANGE', KEYS[1], (after + 1) .. '-0', '+', 'COUNT', 512)
  for _, entry in ipairs(entries) do
    local f = entry[2]
    for j = 1, #f - 1, 2 do
      if f[j] == 'c' and f[j + 1] == cmd then
        return tonumber(string.match(entry[1], '^(%d+)')) + n - 1
      end
    end
  end
  return false
end
"""

# Appends ARGV[first..] (each event's JSON) after version `current`, tagging the first with
# the command id; with a `live` channel, publishes them there too, as one JSON array (the
# followers of service/live/push.py: pushed, not read back).
_LUA_ADD = """
local function add(current, first, cmd, live)
  local n = #ARGV - first + 1
  for i = 1, n do
    if i == 1 and cmd ~= '' then
      redis.call('XADD', KEYS[1], (current + i) .. '-0', 'e', ARGV[first], 'c', cmd)
    else
      redis.call('XADD', KEYS[1], (current + i) .. '-0', 'e', ARGV[first + i - 1])
    end
  end
  if live then
    redis.call('PUBLISH', live, '[' .. table.concat(ARGV, ',', first, #ARGV) .. ']')
  end
  return current + n
end
"""

# KEYS: stream, idempotency key, snapshot, meta, and the channel its events are published on
# (none: not published). ARGV: expected version, idempotency record
# ('' for none), its TTL, snapshot version ('' for none), snapshot JSON, snapshot hash, a meta
# field and its value ('' for none), the expected tip hash ('' not checked), the command id
# ('' for none), then each event's JSON. All or nothing: one script.
# The append happens only if the stream's length AND the hash of its tip are what the caller
# decided on: a stream that lost events (a failover, a restore) and grew again to the same
# length is told apart. A command already in the stream (a retry after a lost reply) answers
# 'done' with the version its first try reached, and appends nothing.
APPEND = (
    _LUA_HASH_AT
    + _LUA_DONE
    + _LUA_ADD
    + """
local n = #ARGV - 10
if ARGV[2] ~= '' then
  local prior = redis.call('GET', KEYS[2])
  if prior then return {'idem', prior} end
end
local expected = tonumber(ARGV[1])
local current = redis.call('XLEN', KEYS[1])
if current ~= expected then
  local done = current > expected and done_at(expected, ARGV[10], n)
  if done then return {'done', tostring(done)} end
  return {'conflict', tostring(current)}
end
if ARGV[9] ~= '' and current > 0 and hash_at(current) ~= ARGV[9] then
  return {'diverged', tostring(current)}
end
local new = add(current, 11, ARGV[10], KEYS[5])
if ARGV[2] ~= '' then redis.call('SET', KEYS[2], ARGV[2], 'EX', tonumber(ARGV[3])) end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'v', ARGV[4], 's', ARGV[5], 'h', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[4], ARGV[7], ARGV[8]) end
return {'ok', tostring(new)}
"""
)

# KEYS: stream, meta. ARGV: the command id, then the meta's field count, its fields and values
# (the seed first, the seats' token digests), then each event's JSON. A game is made
# whole or not at all: meta, tokens and first events in one script. 'taken' if the id is in use
# (a fixed test id), 'done' if this very command made it (a retry after a lost reply).
CREATE = (
    _LUA_DONE
    + _LUA_ADD
    + """
local fields = tonumber(ARGV[2])
local first = 3 + 2 * fields
local n = #ARGV - first + 1
if redis.call('EXISTS', KEYS[1]) == 1 then
  local done = done_at(0, ARGV[1], n)
  if done then return {'done', tostring(done)} end
  return {'taken', ''}
end
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then return {'taken', ''} end
if fields > 1 then redis.call('HSET', KEYS[2], unpack(ARGV, 5, first - 1)) end
return {'ok', tostring(add(0, first, ARGV[1]))}
"""
)

# KEYS: stream, snapshot. ARGV: the version wanted ('+' for the latest), the version the caller
# already holds (0 for none) and its hash ('' not checked). Returns the snapshot (false when
# the caller's state is as good), the events after the starting point, and 1 when the caller's
# state is not in the stream any more (the stream lost or replaced events: start again), in
# one round trip. A snapshot is used only if the stream holds the very event it was made at.
LOAD = (
    _LUA_HASH_AT
    + """
local upto = ARGV[1]
local from = tonumber(ARGV[2]) + 1
local reset = 0
if from > 1 and ARGV[3] ~= '' and hash_at(from - 1) ~= ARGV[3] then
  from = 1
  reset = 1
end
local snap = false
local snapv = redis.call('HGET', KEYS[2], 'v')
if snapv and tonumber(snapv) >= from and (upto == '+' or tonumber(snapv) <= tonumber(upto)) then
  local s = redis.call('HMGET', KEYS[2], 's', 'h')
  local h = s[2]
  if not h then h = cjson.decode(s[1])['hash'] end
  if h == '' or hash_at(tonumber(snapv)) == h then
    snap = s[1]
    from = tonumber(snapv) + 1
  end
end
local last = upto == '+' and '+' or (upto .. '-0')
return {snap, redis.call('XRANGE', KEYS[1], from .. '-0', last), reset, redis.call('EXISTS', KEYS[1])}
"""
)

# KEYS: the game's keys (the stream first). ARGV: the version archived. Deletes them only if the
# stream still ends there (an archived game is finished: it cannot grow, but never guess).
DROP = """
if redis.call('XLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
redis.call('DEL', unpack(KEYS))
return 1
"""

# KEYS: meta, stream. The game as Redis holds it, at one instant (one slot: a cluster too).
DUMP = """
return {redis.call('HGETALL', KEYS[1]), redis.call('XRANGE', KEYS[2], '-', '+')}
"""

# KEYS: stream, audits. ARGV: field, value. Only while the game is in Redis (never recreate a
# key of a game archived meanwhile).
KEEP_AUDIT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
return 1
"""

# KEYS: a client's set of games in play. ARGV: a game, the cap. The game joins the set unless the
# client holds `cap` games already: 1 if it is held (now, or by an earlier try), 0 at the cap.
# One script, so two creates at the same instant cannot both take the last place.
HOLD = """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1
"""

# KEYS: the ticket. ARGV: now (epoch seconds), who takes it. A seed ticket is taken once: 'ok'
# and the seed, or why not ('unknown', 'used', 'expired'); the record stays a day past its
# expiry so that a late or repeated use is told apart from a ticket that never was. The same
# taker again (redis-py resending after a lost reply) gets 'ok' again.
TAKE_TICKET = """
local t = redis.call('HMGET', KEYS[1], 'seed', 'expires', 'used')
if not t[1] then return {'unknown', ''} end
if t[3] then
  if t[3] == ARGV[2] then return {'ok', t[1]} end
  return {'used', ''}
end
if tonumber(t[2]) <= tonumber(ARGV[1]) then return {'expired', ''} end
redis.call('HSET', KEYS[1], 'used', ARGV[2])
return {'ok', t[1]}
"""
