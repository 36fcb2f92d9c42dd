import socket, time
TCP_NOTSENT_LOWAT = 25
def trial(lowat):
    ls = socket.socket(); ls.bind(("127.0.0.1", 0)); ls.listen(1)
    c = socket.socket()
    if lowat: c.setsockopt(socket.IPPROTO_TCP, TCP_NOTSENT_LOWAT, lowat)
    c.connect(ls.getsockname()); s, _ = ls.accept()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    c.setblocking(False)
    # fill: the receiver reads nothing
    total = 0; first_block = None
    buf = b"x" * 65536
    for i in range(10000):
        try:
            n = c.send(buf); total += n
        except BlockingIOError:
            if first_block is None: first_block = total
            time.sleep(0.01)
            try:
                n = c.send(buf); total += n; continue
            except BlockingIOError:
                break
    # now read a little on the receiver and see how much more the sender takes per write
    s.setblocking(False)
    got = 0
    try:
        while got < 200000:
            got += len(s.recv(65536))
    except BlockingIOError: pass
    time.sleep(0.05)
    more = []
    for i in range(5):
        try: more.append(c.send(buf))
        except BlockingIOError: more.append(-1)
    print(f"lowat={lowat}: accepted {total} bytes before refusing; after the reader took {got}: writes {more}")
    c.close(); s.close(); ls.close()
trial(0); trial(16384)
