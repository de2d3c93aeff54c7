package dev.socialgraph.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * HTTP/1.1 over a plain socket, for requests no HTTP client library sends as they are (bad percent-encoding, huge
 * headers, unknown methods, bodies the server refuses half-way) and for reading exactly what the gateway answers.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** A response: status code, {@code Content-Type} ({@code ""} when absent), the head as sent, and the body. */
    record Response(int status, String contentType, String head, String body) {
    }

    /**
     * Sends {@code request} (head and body as given) on a new connection and reads one response. A bound on each
     * read (10 s) only makes a missing answer fail the test instead of hanging it.
     */
    static Response exchange(int port, String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            socket.getOutputStream().flush();
            return read(socket.getInputStream());
        }
    }

    /**
     * Reads one response; its body by {@code Content-Length}, else up to the end of the stream (a response without
     * one ends with the connection).
     */
    static Response read(InputStream in) throws IOException {
        String head = readHead(in);
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        int length = -1;
        String contentType = "";
        for (String line : lines) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            } else if (lower.startsWith("content-type:")) {
                contentType = line.substring(line.indexOf(':') + 1).trim();
            }
        }
        byte[] body = length >= 0 ? in.readNBytes(length) : in.readAllBytes();
        return new Response(status, contentType, head, new String(body, StandardCharsets.UTF_8));
    }

    private static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0; // how much of "\r\n\r\n" has just been read
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed after " + head.size() + " bytes of a response head");
            }
            head.write(b);
            matched = (b == '\r' && (matched == 0 || matched == 2)) || (b == '\n' && (matched == 1 || matched == 3))
                    ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.ISO_8859_1);
    }
}
