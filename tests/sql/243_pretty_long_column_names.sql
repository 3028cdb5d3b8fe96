-- Pretty and Vertical cut long column names that are not plain identifiers.
SELECT IPv4NumToString(toIPv4('192.168.5.2')), 1 AS a_very_long_column_name_that_goes_on_and_on FORMAT Vertical;
SELECT concat(toString(number), 'abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrstuvwxyz') FROM numbers(1) FORMAT PrettyCompact;
SELECT concat('ab', 'cd') || 'efghijklmnopqrstuvwxyz' FORMAT PrettyCompact;
SELECT 'x' AS `abc(def)ghijklmnopqrstuvwxy`, 'y' AS `abc(def)ghijklmnopqrstuvwxyz`, 'z' AS `abc(def)ghijklmnopqrstuvwxyz0`, 3 AS `ĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀ` FORMAT Vertical;
SELECT 1 AS `a.bcdefghijklmnopqrstuvwxyz0123456789`, 4 AS `_1bcdefghijklmnopqrstuvwxyz0123456789`, 5 AS `1bcdefghijklmnopqrstuvwxyz0123456789` FORMAT Vertical;
SELECT plus(1111111111, 2222222222222222) FORMAT PrettySpace;
SELECT plus(1111111111, 2222222222222222) FORMAT Pretty;
SELECT plus(1111111111, 2222222222222222) FORMAT Pretty SETTINGS output_format_pretty_max_column_name_width_cut_to = 10;
SELECT plus(1111111111, 2222222222222222) FORMAT Vertical SETTINGS output_format_pretty_max_column_name_width_min_chars_to_cut = 100;
