import Imagery
@testable import ImageryImgproxy
import Testing

/// The sizes imgproxy's own steps tell the pixel budget before they run are the sizes they make.
@Suite("imgproxy's steps say their output size before they run")
struct ImgproxyFootprintTests {
    static let sources = [PixelSize(width: 64, height: 43), PixelSize(width: 30, height: 90), PixelSize(width: 7, height: 5)]

    @Test("Every resizing type, box, enlargement, minimum and zoom", arguments: ImgproxyOptions.ResizingType.allCases)
    func resize(type: ImgproxyOptions.ResizingType) throws {
        let boxes = [(20, 20), (0, 30), (50, 0), (100, 80), (0, 0)]
        for source in Self.sources {
            let image = Bitmap(width: source.width, height: source.height, filledWith: RGBA(red: 9, green: 99, blue: 199))
            for (width, height) in boxes {
                for enlarge in [false, true] {
                    for (minWidth, zoom) in [(0, 1.0), (70, 1.0), (0, 1.5)] {
                        let resize = ImgproxyResize(
                            type: type, width: width, height: height, enlarge: enlarge, gravity: .center, minWidth: minWidth, zoomWidth: zoom, zoomHeight: zoom
                        )
                        let made = try resize.process(image)
                        #expect(resize.footprint(for: source).output == PixelSize(width: made.width, height: made.height), "\(resize.identifier) of \(source)")
                    }
                }
            }
        }
    }

    @Test("Crops and aspect-ratio extensions")
    func cropAndExtend() throws {
        for source in Self.sources {
            let image = Bitmap(width: source.width, height: source.height, filledWith: .white)
            for (width, height) in [(0.5, 0.0), (10.0, 200.0), (1.0, 0.25)] {
                let crop = ImgproxyCrop(width: width, height: height, gravity: .center)
                let made = try crop.process(image)
                #expect(crop.footprint(for: source).output == PixelSize(width: made.width, height: made.height), "\(crop.identifier) of \(source)")
            }
            for (width, height) in [(16, 9), (1, 3), (64, 43)] {
                let extend = ImgproxyExtendAspectRatio(width: width, height: height, color: .white, gravity: .center)
                let made = try extend.process(image)
                #expect(extend.footprint(for: source).output == PixelSize(width: made.width, height: made.height), "\(extend.identifier) of \(source)")
            }
        }
    }
}
