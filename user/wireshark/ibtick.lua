-- ibtick.lua - Wireshark/tshark dissector for the ibtick wire header.
--
-- Every tick an AF_IBTICK publisher sends is one UD SEND to the feed's
-- multicast group; its payload starts with struct ibtick_wire_hdr
-- (include/uapi/linux/ibtick.h), all fields big-endian:
--
--   offset size field
--        0    2 magic      0x4954 ("IT")
--        2    1 version    1
--        3    1 hdr_len    header bytes (32; later versions may add more)
--        4    2 feed_port  port of the destination feed
--        6    2 len        payload bytes after the header
--        8    4 pub_id     publisher id, random per publishing socket
--       12    4 reserved   0
--       16    8 pub_seq    1, 2, 3, ... per publisher
--       24    8 send_ns    CLOCK_REALTIME at sendmsg, ns since the epoch
--
-- Wireshark's InfiniBand dissector decodes the transport headers (LRH/GRH
-- on IB captures such as ibdump's, BTH/DETH on RoCEv2 over UDP 4791) and
-- offers the payload of the packet to the heuristic dissectors of the list
-- "infiniband.payload".  This file registers one there: it takes a payload
-- that starts with the magic and version 1 and leaves everything else to
-- the others.
--
-- Use:   tshark -X lua_script:ibtick.lua -r FILE -Y ibtick
-- or install it in a Lua plugin directory (tshark -G folders).

local HDR_MIN = 32
local MAGIC = 0x4954
local VERSION = 1

local p = Proto("ibtick", "ibtick tick")

local f = {
	magic     = ProtoField.uint16("ibtick.magic", "Magic", base.HEX,
	                              { [MAGIC] = "IT" }),
	version   = ProtoField.uint8("ibtick.version", "Version", base.DEC),
	hdr_len   = ProtoField.uint8("ibtick.hdr_len", "Header length", base.DEC),
	feed_port = ProtoField.uint16("ibtick.feed_port", "Feed port", base.DEC),
	len       = ProtoField.uint16("ibtick.len", "Payload length", base.DEC),
	pub_id    = ProtoField.uint32("ibtick.pub_id", "Publisher id", base.HEX),
	reserved  = ProtoField.uint32("ibtick.reserved", "Reserved", base.HEX),
	pub_seq   = ProtoField.uint64("ibtick.pub_seq", "Publisher sequence", base.DEC),
	send_ns   = ProtoField.uint64("ibtick.send_ns", "Send time (ns since the epoch)", base.DEC),
	send_time = ProtoField.absolute_time("ibtick.send_time", "Send time", base.UTC),
	hdr_extra = ProtoField.bytes("ibtick.hdr_extra", "Header bytes of a later version"),
	trailer   = ProtoField.bytes("ibtick.trailer", "Bytes after the payload"),
}
p.fields = f

local e = {
	short = ProtoExpert.new("ibtick.short", "Packet shorter than the ibtick header",
	                        expert.group.MALFORMED, expert.severity.ERROR),
	hdr_len = ProtoExpert.new("ibtick.bad_hdr_len", "Bad header length",
	                          expert.group.MALFORMED, expert.severity.ERROR),
	len = ProtoExpert.new("ibtick.bad_len", "Payload length beyond the packet",
	                      expert.group.MALFORMED, expert.severity.ERROR),
	reserved = ProtoExpert.new("ibtick.reserved_set", "Reserved field is not 0",
	                           expert.group.PROTOCOL, expert.severity.WARN),
}
p.experts = e

local data = Dissector.get("data")
local NS = UInt64(1000000000)

-- the header, from a buffer that starts with the magic and version;
-- returns the bytes used
local function dissect(tvb, pinfo, tree)
	local size = tvb:reported_length_remaining()
	local t = tree:add(p, tvb())

	pinfo.cols.protocol = "ibtick"
	t:add(f.magic, tvb(0, 2))
	t:add(f.version, tvb(2, 1))
	if size < HDR_MIN then
		t:add_proto_expert_info(e.short, string.format(
			"%d bytes, shorter than the %d-byte ibtick header", size, HDR_MIN))
		pinfo.cols.info = "ibtick, truncated header"
		return size
	end

	local hdr_len = tvb(3, 1):uint()
	local hl = t:add(f.hdr_len, tvb(3, 1))
	local port = tvb(4, 2):uint()
	t:add(f.feed_port, tvb(4, 2))
	local len = tvb(6, 2):uint()
	local ll = t:add(f.len, tvb(6, 2))
	local id = tvb(8, 4):uint()
	t:add(f.pub_id, tvb(8, 4))
	local rl = t:add(f.reserved, tvb(12, 4))
	if tvb(12, 4):uint() ~= 0 then
		rl:add_proto_expert_info(e.reserved)
	end
	local seq = tvb(16, 8):uint64()
	t:add(f.pub_seq, tvb(16, 8))
	local ns = tvb(24, 8):uint64()
	t:add(f.send_ns, tvb(24, 8))
	t:add(f.send_time, tvb(24, 8),
	      NSTime.new((ns / NS):tonumber(), (ns % NS):tonumber()))

	pinfo.cols.info = string.format("feed %d pub 0x%08x seq %s len %d",
	                                port, id, tostring(seq), len)

	if hdr_len < HDR_MIN or hdr_len > size then
		hl:add_proto_expert_info(e.hdr_len, string.format(
			"Header length %d: not in %d..%d (the packet's ibtick bytes)",
			hdr_len, HDR_MIN, size))
		pinfo.cols.info:append(" [bad header length]")
		t:set_len(size)
		return size
	end
	if hdr_len > HDR_MIN then
		t:add(f.hdr_extra, tvb(HDR_MIN, hdr_len - HDR_MIN))
	end

	local room = size - hdr_len
	if len > room then
		ll:add_proto_expert_info(e.len, string.format(
			"Payload length %d, but %d bytes follow the header", len, room))
		pinfo.cols.info:append(" [bad payload length]")
		len = room
	end
	if len > 0 then
		data:call(tvb(hdr_len, len):tvb(), pinfo, t)
	end
	-- a UD SEND is padded to 4 bytes (BTH PadCnt), and the InfiniBand
	-- dissector leaves the pad in what it hands on
	if hdr_len + len < size then
		t:add(f.trailer, tvb(hdr_len + len, size - hdr_len - len))
	end
	t:set_len(size)
	return size
end

-- the heuristic: magic and version, nothing else is ibtick
local function heuristic(tvb, pinfo, tree)
	if tvb:len() < 3 or tvb(0, 2):uint() ~= MAGIC or tvb(2, 1):uint() ~= VERSION then
		return false
	end
	dissect(tvb, pinfo, tree)
	return true
end

p:register_heuristic("infiniband.payload", heuristic)
