import { luaScript } from "../../shared/lua-script.js";

// HSET of ARGV pairs [from, from + 2 * pairs) in slices: Lua's unpack has a stack limit (a long thread's first put can write thousands of items).
const HSET_PAIRS = `
local function hsetPairs(key, from, pairs)
  local done = 0
  while done < pairs do
    local n = math.min(pairs - done, 1000)
    redis.call("HSET", key, unpack(ARGV, from + 2 * done, from + 2 * (done + n) - 1))
    done = done + n
  end
end
`;

/**
 * One checkpoint, atomically: its new items and channel values, its id in the namespace's index, its own
 * hash, every key's TTL; returns how many checkpoints the namespace holds. One round trip and one command,
 * where a MULTI of a dozen commands (five of them EXPIREs) cost the worker more CPU than the step it saved.
 * KEYS: items, blobs, namespaces, ids, checkpoint. ARGV: ttl (0: none), namespace, id, item pairs, blob
 * pairs, then item fields and values, blob fields and values, checkpoint fields and values.
 */
export const putCheckpoint = luaScript(`${HSET_PAIRS}
local ttl = tonumber(ARGV[1])
local items, blobs = tonumber(ARGV[4]), tonumber(ARGV[5])
hsetPairs(KEYS[1], 6, items)
hsetPairs(KEYS[2], 6 + 2 * items, blobs)
redis.call("SADD", KEYS[3], ARGV[2])
redis.call("ZADD", KEYS[4], 0, ARGV[3])
redis.call("DEL", KEYS[5])
local from = 6 + 2 * (items + blobs)
hsetPairs(KEYS[5], from, (#ARGV - from + 1) / 2)
if ttl > 0 then
  for i = 1, 5 do redis.call("EXPIRE", KEYS[i], ttl) end
end
return redis.call("ZCARD", KEYS[4])
`);

/**
 * A task's writes on a checkpoint, atomically, with their new items and the keys' TTL. A write marked "nx"
 * (a regular one) keeps the first writer's value: a retried task must not change history.
 * KEYS: items, writes. ARGV: ttl (0: none), item pairs, item fields and values, then per write: "nx" or
 * "set", field, value.
 */
export const putCheckpointWrites = luaScript(`${HSET_PAIRS}
local ttl = tonumber(ARGV[1])
local items = tonumber(ARGV[2])
hsetPairs(KEYS[1], 3, items)
local at = 3 + 2 * items
while at <= #ARGV do
  if ARGV[at] == "nx" then
    redis.call("HSETNX", KEYS[2], ARGV[at + 1], ARGV[at + 2])
  else
    redis.call("HSET", KEYS[2], ARGV[at + 1], ARGV[at + 2])
  end
  at = at + 3
end
if ttl > 0 then
  redis.call("EXPIRE", KEYS[2], ttl)
  redis.call("EXPIRE", KEYS[1], ttl)
end
return 1
`);
