//! The TCP links between this run's broker and other machines' brokers, watched from outside
//! LLMP.
//!
//! LLMP keeps a link to another broker in a thread of its own, and when the other side's
//! process dies the thread ends (or idles) without telling anyone: the run goes on alone,
//! which is right, but silently, so a user who started two machines for the night learns in
//! the morning that they stopped sharing at midnight. The kernel knows: a link is an
//! established TCP connection of the coordinator's process, and the other side's death
//! closes it. The coordinator's only lasting TCP connections are these links (a local
//! client's hello connection lasts milliseconds, and a link must be seen twice, a second
//! apart, to count).
//!
//! Linking again needs no new machinery: a broker's listener takes a link from another
//! broker at any time, so the run that comes back is started with `--connect` to the one that
//! stayed. (A link made later from this side could share its LLMP id with a client this
//! broker numbers later; a link made by the other side is numbered by this side's listener.)

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// What changed since the last look.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LinkChanges {
    /// Peers linked now that were not before (seen on two looks in a row).
    pub linked: Vec<SocketAddr>,
    /// Peers that were linked and are gone.
    pub lost: Vec<SocketAddr>,
}

/// The peers this process had established TCP connections with, as of the last two looks.
#[derive(Debug, Default)]
pub struct BrokerLinks {
    /// Announced as linked.
    linked: BTreeSet<SocketAddr>,
    /// Seen on the last look only.
    seen_once: BTreeSet<SocketAddr>,
}

impl BrokerLinks {
    /// Links that exist now count as known (the `--connect` link the run was started with):
    /// only later changes are news.
    pub fn known_now() -> Self {
        Self {
            linked: established_peers(),
            seen_once: BTreeSet::new(),
        }
    }

    /// Looks at this process's connections now (Linux: `/proc`); elsewhere nothing changes.
    pub fn look(&mut self) -> LinkChanges {
        self.update(&established_peers())
    }

    fn update(&mut self, now: &BTreeSet<SocketAddr>) -> LinkChanges {
        let mut changes = LinkChanges::default();
        for peer in now {
            if !self.linked.contains(peer) && self.seen_once.contains(peer) {
                changes.linked.push(*peer);
            }
        }
        for peer in &self.linked {
            if !now.contains(peer) {
                changes.lost.push(*peer);
            }
        }
        self.linked.retain(|p| now.contains(p));
        self.linked.extend(changes.linked.iter().copied());
        self.seen_once = now.difference(&self.linked).copied().collect();
        changes
    }
}

/// The remote ends of this process's established TCP connections.
fn established_peers() -> BTreeSet<SocketAddr> {
    let ours = socket_inodes();
    if ours.is_empty() {
        return BTreeSet::new();
    }
    ["/proc/net/tcp", "/proc/net/tcp6"]
        .iter()
        .filter_map(|table| std::fs::read_to_string(table).ok())
        .flat_map(|text| {
            text.lines()
                .skip(1)
                .filter_map(parse_connection)
                .collect::<Vec<_>>()
        })
        .filter(|c| c.established && ours.contains(&c.inode))
        .map(|c| c.peer)
        .collect()
}

/// The inodes of this process's sockets, from its descriptors' links (`socket:[INODE]`).
fn socket_inodes() -> BTreeSet<u64> {
    let Ok(fds) = std::fs::read_dir("/proc/self/fd") else {
        return BTreeSet::new();
    };
    fds.filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|target| {
            let text = target.to_str()?;
            text.strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect()
}

struct Connection {
    peer: SocketAddr,
    established: bool,
    inode: u64,
}

/// One line of `/proc/net/tcp` or `tcp6`: `sl local rem st tx:rx tr:when retr uid timeout
/// inode ...`, addresses as hex words in the kernel's byte order.
fn parse_connection(line: &str) -> Option<Connection> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let peer = parse_address(fields.get(2)?)?;
    let established = *fields.get(3)? == "01";
    let inode = fields.get(9)?.parse().ok()?;
    Some(Connection {
        peer,
        established,
        inode,
    })
}

fn parse_address(text: &str) -> Option<SocketAddr> {
    let (ip, port) = text.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let words: Vec<u32> = (0..ip.len() / 8)
        .map(|i| u32::from_str_radix(ip.get(8 * i..8 * i + 8)?, 16).ok())
        .collect::<Option<_>>()?;
    // Each 32-bit word is printed as a number in host order: on little-endian machines its
    // bytes come out reversed.
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let ip = match bytes.len() {
        4 => IpAddr::V4(Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3])),
        16 => {
            let v6 = Ipv6Addr::from(<[u8; 16]>::try_from(bytes).ok()?);
            v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_addresses_read_back() {
        let line = "   3: 0100007F:A411 0100007F:0539 01 00000000:00000000 00:00000000 \
                    00000000  1000        0 123456 1 0000000000000000 20 4 30 10 -1";
        let c = parse_connection(line).unwrap();
        assert_eq!(c.peer, "127.0.0.1:1337".parse().unwrap());
        assert!(c.established);
        assert_eq!(c.inode, 123456);
        let v6 = "   0: 0000000000000000FFFF00000100007F:1F90 \
                  0000000000000000FFFF00000200007F:0539 06 00000000:00000000 00:00000000 \
                  00000000  1000        0 7 1";
        let c = parse_connection(v6).unwrap();
        assert_eq!(c.peer, "127.0.0.2:1337".parse().unwrap());
        assert!(!c.established);
    }

    #[test]
    fn a_link_counts_once_seen_twice_and_is_lost_when_it_goes() {
        let a: SocketAddr = "10.0.0.1:1337".parse().unwrap();
        let hello: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let mut links = BrokerLinks::default();
        let set = |peers: &[SocketAddr]| peers.iter().copied().collect::<BTreeSet<_>>();
        assert_eq!(links.update(&set(&[a])), LinkChanges::default());
        // A client's hello, seen once, is never announced.
        let changes = links.update(&set(&[a, hello]));
        assert_eq!(changes.linked, vec![a]);
        assert_eq!(links.update(&set(&[a])), LinkChanges::default());
        let changes = links.update(&set(&[]));
        assert_eq!(changes.lost, vec![a]);
        assert_eq!(links.update(&set(&[])), LinkChanges::default());
    }

    #[test]
    fn this_process_sees_its_own_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let _client = std::net::TcpStream::connect(address).unwrap();
        let (_server, _) = listener.accept().unwrap();
        assert!(established_peers().contains(&address));
    }
}
