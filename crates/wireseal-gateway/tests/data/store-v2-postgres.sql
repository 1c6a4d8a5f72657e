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
    key_conflicts bigint DEFAULT 0 NOT NULL
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
    error text
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
INSERT INTO public.node_keys VALUES (8192, '\x0bb813667882c30029bb0bf7837c7fe3384b5761ef5191e45c622106cbfed730', 1795792635901);
INSERT INTO public.node_keys VALUES (8193, '\xb58978dddc0543cbb5343f51de0948b367af3472aaefbda3aaac8049afc8276f', 1795792635902);
INSERT INTO public.node_keys VALUES (8194, '\x3f042c4ec78ef6590eebd732390d4519d61f1e15a2cec0cea9393604c12cca17', 1795792635904);
INSERT INTO public.node_keys VALUES (8195, '\x9e41f829377b26e6c96cdb99e690f10fae14f453a599bafd48f19d84a376aa77', 1795792635906);
INSERT INTO public.nodes VALUES (12291, NULL, NULL, NULL, 1795792635908, 1795792635908, NULL, 0);
INSERT INTO public.nodes VALUES (8192, '\x0bb813667882c30029bb0bf7837c7fe3384b5761ef5191e45c622106cbfed730', 'Feed', 'FD', 1795792635901, 1795792635902, 'legacy', 0);
INSERT INTO public.nodes VALUES (8193, '\xb58978dddc0543cbb5343f51de0948b367af3472aaefbda3aaac8049afc8276f', 'Feed', 'FD', 1795792635902, 1795792635904, 'legacy', 0);
INSERT INTO public.nodes VALUES (8194, '\x3f042c4ec78ef6590eebd732390d4519d61f1e15a2cec0cea9393604c12cca17', 'Feed', 'FD', 1795792635904, 1795792635905, 'legacy', 0);
INSERT INTO public.nodes VALUES (8195, '\x9e41f829377b26e6c96cdb99e690f10fae14f453a599bafd48f19d84a376aa77', 'Feed', 'FD', 1795792635906, 1795792635907, 'legacy', 0);
INSERT INTO public.packets VALUES (8192, 4097, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030301204466565641a02464442200bb813667882c30029bb0bf7837c7fe3384b5761ef5191e45c622106cbfed730', NULL, 1795792635901, 'LongFast', 'absent', 'legacy', NULL);
INSERT INTO public.packets VALUES (8192, 4098, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303030', 'signed by 2000', 1795792635901, 'LongFast', 'valid', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4099, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303030', 'signed by 2000', 1795792635901, 'LongFast', 'invalid', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4100, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795792635901, 'LongFast', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4101, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795792635901, 'Ops', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4102, 4294967295, 'Ops', 'no', NULL, NULL, NULL, 1795792635902, NULL, 'absent', NULL, 'wrong-channel-key');
INSERT INTO public.packets VALUES (8192, 4103, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795792635902, NULL, 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8192, 4104, 30583, 'PKI', 'no', NULL, NULL, NULL, 1795792635902, NULL, 'absent', NULL, 'pkc-not-for-us');
INSERT INTO public.packets VALUES (8193, 4105, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030311204466565641a0246444220b58978dddc0543cbb5343f51de0948b367af3472aaefbda3aaac8049afc8276f', NULL, 1795792635902, 'LongFast', 'absent', 'legacy', NULL);
INSERT INTO public.packets VALUES (8193, 4106, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303031', 'signed by 2001', 1795792635903, 'LongFast', 'valid', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4107, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303031', 'signed by 2001', 1795792635903, 'LongFast', 'invalid', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4108, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795792635903, 'LongFast', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4109, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795792635903, 'Ops', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4110, 4294967295, 'Ops', 'no', NULL, NULL, NULL, 1795792635903, NULL, 'absent', NULL, 'wrong-channel-key');
INSERT INTO public.packets VALUES (8193, 4111, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795792635904, NULL, 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8193, 4112, 30583, 'PKI', 'no', NULL, NULL, NULL, 1795792635904, NULL, 'absent', NULL, 'pkc-not-for-us');
INSERT INTO public.packets VALUES (8194, 4113, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030321204466565641a02464442203f042c4ec78ef6590eebd732390d4519d61f1e15a2cec0cea9393604c12cca17', NULL, 1795792635904, 'LongFast', 'absent', 'legacy', NULL);
INSERT INTO public.packets VALUES (8194, 4114, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303032', 'signed by 2002', 1795792635904, 'LongFast', 'valid', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4115, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303032', 'signed by 2002', 1795792635904, 'LongFast', 'invalid', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4116, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795792635905, 'LongFast', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4117, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795792635905, 'Ops', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4118, 4294967295, 'Ops', 'no', NULL, NULL, NULL, 1795792635905, NULL, 'absent', NULL, 'wrong-channel-key');
INSERT INTO public.packets VALUES (8194, 4119, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795792635905, NULL, 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8194, 4120, 30583, 'PKI', 'no', NULL, NULL, NULL, 1795792635905, NULL, 'absent', NULL, 'pkc-not-for-us');
INSERT INTO public.packets VALUES (8195, 4121, 4294967295, 'LongFast', 'channel', 4, '\x0a092130303030323030331204466565641a02464442209e41f829377b26e6c96cdb99e690f10fae14f453a599bafd48f19d84a376aa77', NULL, 1795792635906, 'LongFast', 'absent', 'legacy', NULL);
INSERT INTO public.packets VALUES (8195, 4122, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303033', 'signed by 2003', 1795792635906, 'LongFast', 'valid', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4123, 4294967295, 'LongFast', 'channel', 1, '\x7369676e65642062792032303033', 'signed by 2003', 1795792635906, 'LongFast', 'invalid', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4124, 4294967295, 'LongFast', 'channel', 1, '\x756e7369676e6564', 'unsigned', 1795792635906, 'LongFast', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4125, 4294967295, 'Ops', 'channel', 1, '\x6f70732061', 'ops a', 1795792635906, 'Ops', 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4126, 4294967295, 'Ops', 'no', NULL, NULL, NULL, 1795792635907, NULL, 'absent', NULL, 'wrong-channel-key');
INSERT INTO public.packets VALUES (8195, 4127, 168496141, 'PKI', 'pkc', 1, '\x646d', 'dm', 1795792635907, NULL, 'absent', NULL, NULL);
INSERT INTO public.packets VALUES (8195, 4128, 30583, 'PKI', 'no', NULL, NULL, NULL, 1795792635907, NULL, 'absent', NULL, 'pkc-not-for-us');
INSERT INTO public.packets VALUES (12291, 0, 4294967295, 'LongFast', 'plain', 73, '\x7265706f7274206f6e65', NULL, 1795792635908, NULL, 'absent', NULL, NULL);
INSERT INTO public.receptions VALUES (8192, 4097, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635901, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4098, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635901, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4099, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635901, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4100, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635901, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4101, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635901, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4102, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635902, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4103, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635902, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8192, 4104, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635902, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4105, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635902, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4106, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635903, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4107, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635903, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4108, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635903, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4109, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635903, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4110, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635903, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4111, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635904, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8193, 4112, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635904, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4113, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635904, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4114, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635904, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4115, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635904, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4116, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635905, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4117, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635905, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4118, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635905, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4119, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635905, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8194, 4120, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635905, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4121, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635906, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4122, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635906, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4123, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635906, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4124, '!gwfeed01', 'msh/EU_868/2/e/LongFast/!gwfeed01', 1795792635906, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4125, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635906, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4126, '!gwfeed01', 'msh/EU_868/2/e/Ops/!gwfeed01', 1795792635907, NULL, NULL, 3, 3, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4127, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635907, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (8195, 4128, '!gwfeed01', 'msh/EU_868/2/e/PKI/!gwfeed01', 1795792635907, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.receptions VALUES (12291, 0, '!gwfeed01', 'msh/EU_868/2/map/', 1795792635908, NULL, NULL, 0, 0, 0, 0, NULL);
INSERT INTO public.schema_version VALUES (1, 1795792635681);
INSERT INTO public.schema_version VALUES (2, 1795792635709);
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
CREATE INDEX packets_by_channel ON public.packets USING btree (channel_id, first_seen_ms);
CREATE INDEX packets_by_from ON public.packets USING btree (from_node, first_seen_ms);
CREATE INDEX packets_by_portnum ON public.packets USING btree (portnum, first_seen_ms);
CREATE INDEX packets_recent ON public.packets USING btree (first_seen_ms);
