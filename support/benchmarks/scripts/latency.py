"""GETs a URL n times on one keep-alive connection with a bearer token, after 50 unrecorded; prints the p50, p99
and max latency in ms and the first answer's item count (or the answer, when it is no list). Usage: latency.py URL TOKEN N LABEL"""
import http.client, json, sys, time, urllib.parse
url, token, n, label = sys.argv[1], sys.argv[2].strip(), int(sys.argv[3]), sys.argv[4]
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(u.hostname, u.port)
path = u.path + ('?' + u.query if u.query else '')
headers = {'Authorization': 'Bearer ' + token}
times, first = [], None
for i in range(50 + n):
    t = time.perf_counter()
    conn.request('GET', path, headers=headers)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f'{label}: {r.status} {body[:300]!r}')
    if i >= 50:
        times.append((time.perf_counter() - t) * 1000)
    if first is None:
        first = json.loads(body)
times.sort()
shape = (f"{len(first['items'])} items on the first page, next {'yes' if first.get('nextCursor') else 'no'}"
         if 'items' in first else json.dumps(first))
print(f"{label}: {shape}; p50 {times[len(times) // 2]:.2f} ms, p99 {times[int(len(times) * 0.99) - 1]:.2f} ms, max {times[-1]:.2f} ms")
