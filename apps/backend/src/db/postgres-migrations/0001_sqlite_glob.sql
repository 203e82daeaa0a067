-- SQLite's glob(pattern, value), which the history uses for a scoped API key's stack patterns:
-- `*` any run of characters, `?` one character, everything else literal, case-sensitive.
CREATE FUNCTION glob(pattern text, value text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$
  SELECT value ~ ('^' || replace(replace(regexp_replace(pattern, '([.+^$(){}|\[\]\\])', '\\\1', 'g'), '*', '.*'), '?', '.') || '$')
$$;
