SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;
SET default_tablespace = '';
SET default_table_access_method = heap;
CREATE TABLE public.meshcore_nodes (
    public_key bytea NOT NULL,
    name text,
    node_type text,
    lat_e6 bigint,
    lon_e6 bigint,
    advert_timestamp bigint,
    signature text,
    first_seen_ms bigint NOT NULL,
    last_heard_ms bigint NOT NULL
);
CREATE TABLE public.meshcore_packets (
    hash bigint NOT NULL,
    payload_type text NOT NULL,
    route text NOT NULL,
    payload_len bigint NOT NULL,
    channel_hash bigint,
    channel_name text,
    src_hash bigint,
    dst_hash bigint,
    sender bytea,
    our_key bytea,
    decrypted integer NOT NULL,
    signature text,
    text text,
    record text NOT NULL,
    first_seen_ms bigint NOT NULL
);
CREATE TABLE public.meshcore_receptions (
    hash bigint NOT NULL,
    observer_id text NOT NULL,
    path text NOT NULL,
    direction text NOT NULL,
    topic text NOT NULL,
    rx_time_ms bigint NOT NULL,
    snr real,
    rssi integer
);
CREATE TABLE public.node_keys (
    node bigint NOT NULL,
    public_key bytea NOT NULL,
    first_seen_ms bigint NOT NULL
);
CREATE TABLE public.nodes (
    node bigint NOT NULL,
    public_key bytea,
    long_name text,
    short_name text,
    first_seen_ms bigint NOT NULL,
    last_seen_ms bigint NOT NULL,
    identity text,
    key_conflicts bigint DEFAULT 0 NOT NULL,
    renumbered_from bigint,
    renumbered_to bigint
);
CREATE TABLE public.packets (
    from_node bigint NOT NULL,
    packet_id bigint NOT NULL,
    to_node bigint NOT NULL,
    channel_id text NOT NULL,
    decryption text NOT NULL,
    portnum bigint,
    payload bytea,
    text text,
    first_seen_ms bigint NOT NULL,
    channel_name text,
    signature text,
    identity text,
    error text,
    our_node bigint
);
CREATE TABLE public.receptions (
    from_node bigint NOT NULL,
    packet_id bigint NOT NULL,
    gateway_id text NOT NULL,
    topic text NOT NULL,
    rx_time_ms bigint NOT NULL,
    rssi integer,
    snr real,
    hop_start bigint,
    hop_limit bigint,
    relay_node bigint DEFAULT 0 NOT NULL,
    transport integer DEFAULT 0 NOT NULL,
    rx_time bigint
);
CREATE TABLE public.schema_version (
    version integer NOT NULL,
    applied_ms bigint NOT NULL
);
INSERT INTO public.meshcore_nodes VALUES ('\x0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e', 'Alice', 'chat', 52500000, 13250000, 1760000001, 'valid', 1795949189960, 1795949189974);
INSERT INTO public.meshcore_nodes VALUES ('\x8489c21197731ea6cddd6dcd0ebc48eb6e692df11c1ad4cc97ff8b3e75a4b71b', '<script>alert(1)</script>', 'chat', NULL, NULL, 1760000007, 'valid', 1795949189989, 1795949189989);
INSERT INTO public.meshcore_nodes VALUES ('\x85abbdbda5fb71f1a004e335f0bf36ef53c0a180e2e74b494f18c1564c5f65a4', NULL, NULL, NULL, NULL, NULL, 'invalid', 1795949189975, 1795949189975);
INSERT INTO public.meshcore_packets VALUES (-6523833035535455170, 'grp_txt', 'flood', 35, 217, '#test', NULL, NULL, NULL, NULL, 1, NULL, 'Carol: hi #test', '{"payload_type":"grp_txt","route_type":"flood","transport_codes":null,"path":[],"hash":"a576b06b3ef36c3e","payload_len":35,"grp_txt":{"channel_hash":"d9","decrypted":true,"channel":1,"timestamp":1760000004,"text_type":"plain","attempt":0,"text":"Carol: hi #test"}}', 1795949189975);
INSERT INTO public.meshcore_packets VALUES (-4374716009795518692, 'grp_txt', 'flood', 19, 215, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, '{"payload_type":"grp_txt","route_type":"flood","transport_codes":null,"path":[],"hash":"c349e2f7a2ec7f1c","payload_len":19,"grp_txt":{"channel_hash":"d7","decrypted":false,"channel":null,"timestamp":null,"text_type":null,"attempt":null,"text":null}}', 1795949189975);
INSERT INTO public.meshcore_packets VALUES (-2253609057678321252, 'advert', 'flood', 126, NULL, NULL, NULL, NULL, '\x8489c21197731ea6cddd6dcd0ebc48eb6e692df11c1ad4cc97ff8b3e75a4b71b', NULL, 0, 'valid', NULL, '{"payload_type":"advert","route_type":"flood","transport_codes":null,"path":[],"hash":"e0b992808e7b199c","payload_len":126,"advert":{"public_key":"8489c21197731ea6cddd6dcd0ebc48eb6e692df11c1ad4cc97ff8b3e75a4b71b","timestamp":1760000007,"signature":"valid","node_type":"chat","name":"<script>alert(1)</script>","lat":null,"lon":null,"feat1":null,"feat2":null}}', 1795949189989);
INSERT INTO public.meshcore_packets VALUES (248490959804183242, 'txt_msg', 'flood', 36, NULL, NULL, 12, 67, '\x0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e', '\x439e0a1eddb448a30ea177a92b691b8054b6cbd86adb1b8a1ab9d2880b761ce2', 1, NULL, 'before the advert', '{"payload_type":"txt_msg","route_type":"flood","transport_codes":null,"path":["33"],"hash":"0372d1361d0632ca","payload_len":36,"txt_msg":{"src_hash":"0c","dst_hash":"43","decrypted":true,"from":"0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e","to":"439e0a1eddb448a30ea177a92b691b8054b6cbd86adb1b8a1ab9d2880b761ce2","timestamp":1760000000,"text_type":"plain","attempt":0,"text":"before the advert"}}', 1795949189974);
INSERT INTO public.meshcore_packets VALUES (884267454371757216, 'advert', 'flood', 114, NULL, NULL, NULL, NULL, '\x0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e', NULL, 0, 'valid', NULL, '{"payload_type":"advert","route_type":"flood","transport_codes":null,"path":[],"hash":"0c458c9090447ca0","payload_len":114,"advert":{"public_key":"0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e","timestamp":1760000001,"signature":"valid","node_type":"chat","name":"Alice","lat":52.5,"lon":13.25,"feat1":null,"feat2":null}}', 1795949189960);
INSERT INTO public.meshcore_packets VALUES (2649044094080163346, 'advert', 'flood', 108, NULL, NULL, NULL, NULL, '\x85abbdbda5fb71f1a004e335f0bf36ef53c0a180e2e74b494f18c1564c5f65a4', NULL, 0, 'invalid', NULL, '{"payload_type":"advert","route_type":"flood","transport_codes":null,"path":[],"hash":"24c34b917dfe9e12","payload_len":108,"advert":{"public_key":"85abbdbda5fb71f1a004e335f0bf36ef53c0a180e2e74b494f18c1564c5f65a4","timestamp":1760000006,"signature":"invalid","node_type":"chat","name":"Mallorx","lat":null,"lon":null,"feat1":null,"feat2":null}}', 1795949189975);
INSERT INTO public.meshcore_packets VALUES (3253021394314303338, 'grp_txt', 'flood', 35, 17, 'public', NULL, NULL, NULL, NULL, 1, NULL, 'Bob: hello public', '{"payload_type":"grp_txt","route_type":"flood","transport_codes":null,"path":[],"hash":"2d250db90ed9976a","payload_len":35,"grp_txt":{"channel_hash":"11","decrypted":true,"channel":0,"timestamp":1760000003,"text_type":"plain","attempt":0,"text":"Bob: hello public"}}', 1795949189974);
INSERT INTO public.meshcore_packets VALUES (5128914374259248796, 'grp_txt', 'flood', 67, 17, 'public', NULL, NULL, NULL, NULL, 1, NULL, 'Eve: <img src=x onerror="document.body.dataset.pwned=1">', '{"payload_type":"grp_txt","route_type":"flood","transport_codes":null,"path":[],"hash":"472d9073011e0e9c","payload_len":67,"grp_txt":{"channel_hash":"11","decrypted":true,"channel":0,"timestamp":1760000008,"text_type":"plain","attempt":0,"text":"Eve: <img src=x onerror=\"document.body.dataset.pwned=1\">"}}', 1795949190002);
INSERT INTO public.meshcore_packets VALUES (7311609117563910207, 'txt_msg', 'flood', 36, NULL, NULL, 12, 67, '\x0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e', '\x439e0a1eddb448a30ea177a92b691b8054b6cbd86adb1b8a1ab9d2880b761ce2', 1, NULL, 'after the advert', '{"payload_type":"txt_msg","route_type":"flood","transport_codes":null,"path":[],"hash":"65780dc0fce7783f","payload_len":36,"txt_msg":{"src_hash":"0c","dst_hash":"43","decrypted":true,"from":"0c708db063134e4bb12eaf9520245044e8cc351f4eb87f68880e2b796867426e","to":"439e0a1eddb448a30ea177a92b691b8054b6cbd86adb1b8a1ab9d2880b761ce2","timestamp":1760000002,"text_type":"plain","attempt":0,"text":"after the advert"}}', 1795949189974);
INSERT INTO public.meshcore_receptions VALUES (-6523833035535455170, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189975, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (-6523833035535455170, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b02', '33', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B02/packets', 1795949189975, 6.25, -92);
INSERT INTO public.meshcore_receptions VALUES (-4374716009795518692, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189975, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (-2253609057678321252, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189989, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (248490959804183242, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189960, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (248490959804183242, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b02', '33', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B02/packets', 1795949189974, 6.25, -92);
INSERT INTO public.meshcore_receptions VALUES (884267454371757216, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189960, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (884267454371757216, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b02', '33', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B02/packets', 1795949189974, 6.25, -92);
INSERT INTO public.meshcore_receptions VALUES (884267454371757216, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b03', '33,44', '', 'meshcore-raw/SEA/5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b03', 1795949189974, NULL, NULL);
INSERT INTO public.meshcore_receptions VALUES (2649044094080163346, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189975, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (3253021394314303338, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189974, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (3253021394314303338, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b02', '33', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B02/packets', 1795949189975, 6.25, -92);
INSERT INTO public.meshcore_receptions VALUES (3253021394314303338, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b03', '', '', 'meshcore-raw/SEA/5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b03', 1795949189975, NULL, NULL);
INSERT INTO public.meshcore_receptions VALUES (5128914374259248796, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949190002, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (7311609117563910207, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b01', '', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B01/packets', 1795949189974, 6.25, -91);
INSERT INTO public.meshcore_receptions VALUES (7311609117563910207, '5a0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b02', '33', 'rx', 'meshcore/SEA/5A0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B0B02/packets', 1795949189974, 6.25, -92);
INSERT INTO public.node_keys VALUES (8192, '\xadf3afdf0793b7989a9f3790eb8621158a888d60738b84b3e2eb28c23447015f', 1795949184904);
INSERT INTO public.node_keys VALUES (8193, '\x2f16aa22635205ccf9b94f5610c18f047df44b9a84498d67340ade5a28c1123a', 1795949184939);
INSERT INTO public.node_keys VALUES (8194, '\x96aa26380125333335e4e3db71a81597056b637630295ca947069baf766aed4a', 1795949184971);
INSERT INTO public.node_keys VALUES (8195, '\x7067d942bcbc78fc80dd5ba3f75667593c64b6771efc102f5f04debb66db7e3d', 1795949185002);
INSERT INTO public.nodes VALUES (8192, '\xadf3afdf0793b7989a9f3790eb8621158a888d60738b84b3e2eb28c23447015f', 'Feed', 'FD', 1795949184904, 1795949184939, 'legacy', 0, NULL, NULL);
INSERT INTO public.nodes VALUES (8193, '\x2f16aa22635205ccf9b94f5610c18f047df44b9a84498d67340ade5a28c1123a', 'Feed', 'FD', 1795949184939, 1795949184971, 'legacy', 0, NULL, NULL);
INSERT INTO public.nodes VALUES (8194, '\x96aa26380125333335e4e3db71a81597056b637630295ca947069baf766aed4a', 'Feed', 'FD', 1795949184971, 1795949185002, 'legacy', 0, NULL, NULL);
INSERT INTO public.nodes VALUES (8195, '\x7067d942bcbc78fc80dd5ba3f75667593c64b6771efc102f5f04debb66db7e3d', 'Feed', 'FD', 1795949185002, 1795949185033, 'legacy', 0, NULL, NULL);
INSERT INTO public.nodes VALUES (12288, NULL, NULL, NULL, 1795949186770, 1795949186773, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (12289, NULL, NULL, NULL, 1795949186773, 1795949186775, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (12290, NULL, NULL, NULL, 1795949186775, 1795949186776, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (12291, NULL, NULL, NULL, 1795949186776, 1795949186778, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (16384, NULL, NULL, NULL, 1795949188847, 1795949188848, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (16385, NULL, NULL, NULL, 1795949188849, 1795949188849, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (16386, NULL, NULL, NULL, 1795949188850, 1795949188850, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (16387, NULL, NULL, NULL, 1795949188851, 1795949188851, NULL, 0, NULL, NULL);
INSERT INTO public.nodes VALUES (1358954497, NULL, NULL, NULL, 1795949190002, 1795949190002, NULL, 0, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4097, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030301204466565641a0246444220adf3afdf0793b7989a9f3790eb8621158a888d60738b84b3e2eb28c23447015f', NULL, 1795949184904, 'LongFast', 'absent', 'legacy', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4098, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303030', 'signed by 2000', 1795949184905, 'LongFast', 'valid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4099, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303030', 'signed by 2000', 1795949184924, 'LongFast', 'invalid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4100, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949184939, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4101, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949184939, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4102, 4294967295, 'Ops', 'channel', 1, '\x6f70732062', 'ops b', 1795949184939, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4103, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949184939, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (8192, 4104, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949184939, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (8193, 4105, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030311204466565641a02464442202f16aa22635205ccf9b94f5610c18f047df44b9a84498d67340ade5a28c1123a', NULL, 1795949184939, 'LongFast', 'absent', 'legacy', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4106, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303031', 'signed by 2001', 1795949184940, 'LongFast', 'valid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4107, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303031', 'signed by 2001', 1795949184955, 'LongFast', 'invalid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4108, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949184970, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4109, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949184970, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4110, 4294967295, 'Ops', 'channel', 1, '\x6f70732062', 'ops b', 1795949184970, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4111, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949184970, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (8193, 4112, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949184971, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (8194, 4113, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030321204466565641a024644422096aa26380125333335e4e3db71a81597056b637630295ca947069baf766aed4a', NULL, 1795949184971, 'LongFast', 'absent', 'legacy', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4114, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303032', 'signed by 2002', 1795949184971, 'LongFast', 'valid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4115, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303032', 'signed by 2002', 1795949184986, 'LongFast', 'invalid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4116, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949185001, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4117, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949185001, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4118, 4294967295, 'Ops', 'channel', 1, '\x6f70732062', 'ops b', 1795949185001, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4119, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949185001, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (8194, 4120, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949185002, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (8195, 4121, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030331204466565641a02464442207067d942bcbc78fc80dd5ba3f75667593c64b6771efc102f5f04debb66db7e3d', NULL, 1795949185002, 'LongFast', 'absent', 'legacy', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4122, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303033', 'signed by 2003', 1795949185002, 'LongFast', 'valid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4123, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303033', 'signed by 2003', 1795949185017, 'LongFast', 'invalid', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4124, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949185032, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4125, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949185032, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4126, 4294967295, 'Ops', 'channel', 1, '\x6f70732062', 'ops b', 1795949185032, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4127, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949185033, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (8195, 4128, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949185033, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (12288, 4098, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303030', 'signed by 3000', 1795949186770, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12288, 4099, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303030', 'signed by 3000', 1795949186771, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12288, 4100, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949186772, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12288, 4101, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949186772, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12288, 4102, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949186772, NULL, 'absent', NULL, 'wrong-channel-key', NULL);
INSERT INTO public.packets VALUES (12288, 4103, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949186772, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (12288, 4104, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949186773, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (12289, 4106, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303031', 'signed by 3001', 1795949186773, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12289, 4107, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303031', 'signed by 3001', 1795949186773, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12289, 4108, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949186773, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12289, 4109, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949186774, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12289, 4110, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949186774, NULL, 'absent', NULL, 'wrong-channel-key', NULL);
INSERT INTO public.packets VALUES (12289, 4111, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949186774, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (12289, 4112, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949186775, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (12290, 4114, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303032', 'signed by 3002', 1795949186775, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12290, 4115, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303032', 'signed by 3002', 1795949186775, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12290, 4116, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949186775, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12290, 4117, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949186775, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12290, 4118, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949186775, NULL, 'absent', NULL, 'wrong-channel-key', NULL);
INSERT INTO public.packets VALUES (12290, 4119, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949186776, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (12290, 4120, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949186776, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (12291, 4122, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303033', 'signed by 3003', 1795949186776, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12291, 4123, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792033303033', 'signed by 3003', 1795949186776, 'LongFast', 'unknown-key', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12291, 4124, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795949186776, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12291, 4125, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795949186777, 'Ops', 'absent', NULL, NULL, NULL);
INSERT INTO public.packets VALUES (12291, 4126, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949186777, NULL, 'absent', NULL, 'wrong-channel-key', NULL);
INSERT INTO public.packets VALUES (12291, 4127, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795949186777, NULL, 'absent', NULL, NULL, 168496141);
INSERT INTO public.packets VALUES (12291, 4128, 30583, 'PKI', 'none', NULL, NULL, NULL, 1795949186778, NULL, 'absent', NULL, 'pkc-not-for-us', NULL);
INSERT INTO public.packets VALUES (16384, 4101, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188847, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16384, 4102, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188848, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16385, 4109, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188849, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16385, 4110, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188849, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16386, 4117, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188850, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16386, 4118, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188850, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16387, 4125, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188851, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (16387, 4126, 4294967295, 'Ops', 'none', NULL, NULL, NULL, 1795949188851, NULL, 'absent', NULL, 'no-channel', NULL);
INSERT INTO public.packets VALUES (1358954497, 117440513, 4294967295, 'LongFast', 'channel', 1, '\x6d657373616765203131373434303531332066726f6d203531303030303031', 'message 117440513 from 51000001', 1795949190002, 'LongFast', 'absent', NULL, NULL, NULL);
INSERT INTO public.receptions VALUES (8192, 4097, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184904, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4098, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184905, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4099, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184924, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4100, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184939, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4101, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949184939, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4102, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949184939, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4103, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949184939, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4104, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949184939, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4105, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184939, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4106, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184940, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4107, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184955, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4108, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184970, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4109, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949184970, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4110, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949184970, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4111, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949184970, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4112, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949184971, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4113, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184971, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4114, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184971, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4115, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949184986, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4116, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949185001, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4117, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949185001, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4118, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949185001, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4119, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949185001, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4120, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949185002, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4121, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949185002, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4122, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949185002, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4123, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949185017, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4124, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949185032, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4125, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949185032, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4126, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949185032, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4127, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949185033, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4128, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949185033, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4098, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186770, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4099, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186771, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4100, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186772, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4101, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186772, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4102, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186772, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4103, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186772, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12288, 4104, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186773, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4106, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186773, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4107, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186773, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4108, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186773, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4109, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186774, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4110, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186774, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4111, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186774, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12289, 4112, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186775, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4114, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186775, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4115, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186775, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4116, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186775, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4117, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186775, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4118, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186775, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4119, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186776, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12290, 4120, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186776, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4122, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186776, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4123, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186776, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4124, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795949186776, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4125, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186777, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4126, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949186777, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4127, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186777, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 4128, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795949186778, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16384, 4101, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188847, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16384, 4102, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188848, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16385, 4109, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188849, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16385, 4110, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188849, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16386, 4117, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188850, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16386, 4118, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188850, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16387, 4125, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188851, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (16387, 4126, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795949188851, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (1358954497, 117440513, '!0000c001', 'msh/EU_868/2/e/LongFast/!0000c001', 1795949190002, -90, NULL, 3, 2, 0, 0, 1877440513);
INSERT INTO public.receptions VALUES (1358954497, 117440513, '!0000c002', 'msh/EU_868/2/e/LongFast/!0000c002', 1795949190002, -90, NULL, 3, 2, 0, 0, 1877440513);
INSERT INTO public.schema_version VALUES (1, 1795949184357);
INSERT INTO public.schema_version VALUES (2, 1795949184368);
INSERT INTO public.schema_version VALUES (3, 1795949184370);
INSERT INTO public.schema_version VALUES (4, 1795949184382);
ALTER TABLE ONLY public.meshcore_nodes
    ADD CONSTRAINT meshcore_nodes_pkey PRIMARY KEY (public_key);
ALTER TABLE ONLY public.meshcore_packets
    ADD CONSTRAINT meshcore_packets_pkey PRIMARY KEY (hash);
ALTER TABLE ONLY public.meshcore_receptions
    ADD CONSTRAINT meshcore_receptions_key PRIMARY KEY (hash, observer_id, path, direction);
ALTER TABLE ONLY public.node_keys
    ADD CONSTRAINT node_keys_key PRIMARY KEY (node, public_key);
ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_pkey PRIMARY KEY (node);
ALTER TABLE ONLY public.packets
    ADD CONSTRAINT packets_key PRIMARY KEY (from_node, packet_id);
ALTER TABLE ONLY public.receptions
    ADD CONSTRAINT receptions_key PRIMARY KEY (from_node, packet_id, gateway_id, relay_node, transport);
ALTER TABLE ONLY public.schema_version
    ADD CONSTRAINT schema_version_pkey PRIMARY KEY (version);
CREATE INDEX meshcore_nodes_by_last_heard ON public.meshcore_nodes USING btree (last_heard_ms);
CREATE INDEX meshcore_packets_recent ON public.meshcore_packets USING btree (first_seen_ms);
CREATE INDEX nodes_by_last_seen ON public.nodes USING btree (last_seen_ms);
CREATE INDEX packets_by_channel ON public.packets USING btree (channel_id, first_seen_ms);
CREATE INDEX packets_by_from ON public.packets USING btree (from_node, first_seen_ms);
CREATE INDEX packets_by_portnum ON public.packets USING btree (portnum, first_seen_ms);
CREATE INDEX packets_recent ON public.packets USING btree (first_seen_ms);
