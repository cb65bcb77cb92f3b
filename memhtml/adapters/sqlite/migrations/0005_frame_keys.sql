-- files.frame_key is derived from the gist (domain/frame_key.py) from this release on; the
-- conflict assist and doctor read it through the files_frame_key_active index of 0001.
-- Rows projected before hold NULL. Recording the derivation as '' (none) makes the next index
-- update re-key every row from its stored gist (IndexStore.rekey_frames): no file is parsed
-- again, and vectors and every other column stay as they are. A later change of the rule
-- re-keys the same way by recording a new name.
INSERT INTO index_settings(name, value) VALUES ('frame_key_rule', '')
    ON CONFLICT(name) DO NOTHING;
