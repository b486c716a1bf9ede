public import Foundation
public import SousWire

/// The image formats a photo may be (journal entries, recipes), recognised by their signatures
/// rather than by what the sender claims.
public enum ImageType: String, Sendable {
    case jpeg, png, heic, webp

    public init?(of bytes: Data) {
        let head = [UInt8](bytes.prefix(12))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4), head.count >= 12,
            ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(String(decoding: head[8..<12], as: UTF8.self))
        {
            self = .heic
        } else {
            return nil
        }
    }

    /// The type of a photo that is not empty, at most `maxBytes`, and one of the four formats;
    /// otherwise badRequest naming `field`.
    public static func checked(_ bytes: Data, field: String, maxBytes: Int) throws(ServiceError) -> ImageType {
        guard !bytes.isEmpty else { throw .badRequest("the photo is empty", field: field) }
        guard bytes.count <= maxBytes else {
            throw .badRequest("the photo is \(bytes.count) bytes; at most \(maxBytes / 1024 / 1024) MiB (\(maxBytes) bytes) is stored", field: field)
        }
        guard let type = ImageType(of: bytes) else {
            throw .badRequest("the photo is not a JPEG, PNG, HEIC or WebP image (judged by its first bytes)", field: field)
        }
        return type
    }
}
