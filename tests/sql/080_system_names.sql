-- The engines, formats and types a client may look up before using them.
SELECT name FROM system.table_engines WHERE name IN ('MergeTree', 'ReplacingMergeTree', 'SummingMergeTree', 'CollapsingMergeTree', 'Log', 'TinyLog', 'StripeLog', 'Memory') ORDER BY name;
SELECT name, supports_settings, supports_sort_order FROM system.table_engines WHERE name IN ('MergeTree', 'Memory', 'Log') ORDER BY name;
SELECT name, is_input, is_output FROM system.formats WHERE name IN ('CSV', 'TSV', 'JSONEachRow', 'PrettyCompact', 'Vertical', 'TSVWithNamesAndTypes') ORDER BY name;
SELECT name, alias_to FROM system.data_type_families WHERE name IN ('UInt64', 'BIGINT', 'FLOAT', 'DOUBLE', 'TEXT', 'VARCHAR', 'LowCardinality', 'DateTime64') ORDER BY name;
SELECT count() > 0 FROM system.data_type_families WHERE name = 'Nullable';
