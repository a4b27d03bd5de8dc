import ImageryImgproxy

/// The page `imagery-server --demo` serves at `/`: every photo of the embedded gallery through
/// the server's own URLs, signed with its own key when it has one, in a few of the operations
/// a newcomer would try first.
struct DemoPage {
    /// One column of the page: a heading and the processing options of its URLs.
    struct Variant {
        var title: String
        var options: String
    }

    static let variants = [
        Variant(title: "fit 240×240", options: "rs:fit:240:240"),
        Variant(title: "fill 160×160, smart gravity", options: "rs:fill:160:160/g:sm"),
        Variant(title: "fit 240×240, blur 3", options: "rs:fit:240:240/bl:3"),
        Variant(title: "fill 160×160, circle", options: "rs:fill:160:160/circle:1"),
    ]

    var imageNames: [String]
    var signer: ImgproxySigner?
    /// `--path-prefix`, in front of every URL (not signed: imgproxy signs what follows it).
    var pathPrefix = ""

    /// The server path of `name` (a file under the local root) with `options`: the source in
    /// base64url, no extension, so the browser's `Accept` picks the format.
    func path(of name: String, options: String) -> String {
        let unsigned = ImgproxyPath.unsigned(options: options.split(separator: "/").map(String.init), source: "local:///\(name)")
        return "\(pathPrefix)/\(signer?.sign(unsigned) ?? "insecure")\(unsigned)"
    }

    var html: String {
        let header = Self.variants.map { "<th>\(Self.escape($0.title))</th>" }.joined()
        let rows = imageNames.map { name in
            let cells = Self.variants.map { variant in
                "<td><img src=\"\(Self.escape(path(of: name, options: variant.options)))\" alt=\"\(Self.escape(name)), \(Self.escape(variant.title))\"></td>"
            }.joined()
            return "<tr><th scope=\"row\">\(Self.escape(name))</th>\(cells)</tr>"
        }.joined(separator: "\n")
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>imagery-server demo</title>
            <style>
            body { font: 15px/1.4 system-ui, sans-serif; margin: 2rem; color: #222; background: #fafafa; }
            table { border-collapse: collapse; }
            th, td { padding: 6px 10px; text-align: center; vertical-align: middle; }
            thead th { position: sticky; top: 0; background: #fafafa; }
            tbody th { font-weight: normal; color: #666; text-align: right; }
            img { display: block; margin: auto; max-width: 240px; max-height: 240px; }
            td:last-child img { background: repeating-conic-gradient(#ddd 0 25%, #fff 0 50%) 0 0 / 16px 16px; }
            code { background: #eee; padding: 1px 4px; border-radius: 3px; }
            </style>
            </head>
            <body>
            <h1>imagery-server</h1>
            <p>The embedded gallery, served as <code>local://</code> sources through imgproxy-format URLs.
            Open an image in a new tab to see its URL; the format follows your browser's <code>Accept</code>.</p>
            <table>
            <thead><tr><th></th>\(header)</tr></thead>
            <tbody>
            \(rows)
            </tbody>
            </table>
            </body>
            </html>

            """
    }

    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
