//! The demo's synthetic catalog: workshop, electronics and lab products in families (a brand's
//! product line with its colours, sizes and pack counts), with readable titles, descriptions,
//! brands and categories. Every brand and product is made up; nothing is copied from a dataset.

use crate::numeric::random::SeededRng;

/// The kind of project a product serves; users follow one or two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interest {
    /// 3D printing.
    Printing,
    /// Electronics and soldering.
    Electronics,
    /// Wet lab.
    Lab,
    /// Microscopy.
    Microscopy,
    /// General workshop tools and adhesives.
    Workshop,
}

impl Interest {
    /// Every theme, in a fixed order.
    pub const ALL: [Interest; 5] = [
        Interest::Printing,
        Interest::Electronics,
        Interest::Lab,
        Interest::Microscopy,
        Interest::Workshop,
    ];
}

/// One product.
#[derive(Debug, Clone, PartialEq)]
pub struct Product {
    /// Listing title.
    pub title: String,
    /// Listing description.
    pub description: String,
    /// Brand.
    pub brand: String,
    /// Category path, comma-separated like Amazon's.
    pub categories: String,
    /// The family (product line) it belongs to.
    pub family: usize,
    /// Its place in the line (variant × extra order: Mini before Standard, Black before White).
    pub variant: usize,
}

/// A brand's product line: the unit users shop within (another colour of the same filament).
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// Project theme.
    pub theme: Interest,
    /// Products of the line (catalog positions).
    pub products: Vec<usize>,
    /// Relative popularity of the line within its theme.
    pub popularity: f64,
    /// Whether the line's listings are copies of one text with a different colour or size.
    pub near_duplicate: bool,
    /// The product type it is a line of (a position in the catalog's list of types).
    pub kind: usize,
    /// Its place among the lines of its product type (brand-major, model-minor), so that the
    /// same listing of the next brand is one line further.
    pub line: usize,
}

/// The whole catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    /// Products in item-id order (item id i = position i).
    pub products: Vec<Product>,
    /// Product lines.
    pub families: Vec<Family>,
}

/// A product type and how its listings are written. Families are brand × model, the brands
/// being `brands` plus `more_brands` drawn from the theme's brands; products are variant × extra
/// (each kept with probability `keep`). `{brand}`, `{model}`, `{variant}`,
/// `{extra}` and `{noun}` are replaced in `title` and `intro`.
struct Kind {
    noun: &'static str,
    theme: Interest,
    category: &'static str,
    brands: &'static [&'static str],
    more_brands: usize,
    models: &'static [&'static str],
    variants: &'static [&'static str],
    extras: &'static [&'static str],
    keep: f64,
    title: &'static str,
    intro: &'static str,
    features: &'static [&'static str],
    near_duplicate: bool,
}

const PRINTING: &str = "Industrial & Scientific,Additive Manufacturing Products,3D Printing";
const ELECTRONICS: &str = "Industrial & Scientific,Electronic Components";
const TEST: &str = "Industrial & Scientific,Test, Measure & Inspect";
const SAFETY: &str = "Industrial & Scientific,Occupational Health & Safety Products";
const TOOLS: &str = "Industrial & Scientific,Power & Hand Tools";
const TAPES: &str = "Industrial & Scientific,Tapes, Adhesives & Sealants";

const COLOURS: &[&str] = &[
    "Black",
    "White",
    "Fire Engine Red",
    "Galaxy Blue",
    "Grass Green",
    "Sunflower Yellow",
    "Orange",
    "Silver Grey",
    "Purple",
    "Transparent",
    "Wood Brown",
    "Glow in the Dark",
    "Sky Blue",
    "Pink",
    "Olive Green",
    "Gold",
];
const FILAMENT_FEATURES: &[&str] = &[
    "Dimensional accuracy of +/- 0.02 mm keeps extrusion smooth and consistent.",
    "Vacuum sealed with desiccant and dried for 24 hours before packing.",
    "Neatly wound spool without tangles for reliable long prints.",
    "Compatible with most FDM 3D printers that take 1.75 mm filament.",
    "Low warping and good layer adhesion, no heated enclosure needed.",
    "Bubble free, tested on every batch for consistent diameter.",
    "Recommended nozzle temperature 190-220 C, bed temperature 50-60 C.",
    "Cardboard spool, recyclable and lighter than plastic reels.",
];

const KINDS: &[Kind] = &[
    Kind {
        noun: "3D Printer",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printers",
        brands: &["Voxelcraft"],
        more_brands: 0,
        models: &[""],
        variants: &["Mini", "Standard"],
        extras: &[],
        keep: 1.0,
        title: "{brand} {variant} 3D Printer, Auto Bed Leveling, Direct Drive Extruder, Removable PEI Build Plate",
        intro: "The {brand} {variant} 3D printer is a quiet FDM printer for home, school and workshop.",
        features: &[
            "Auto bed leveling with 25 probe points gives a perfect first layer every time.",
            "Direct drive extruder prints PLA, PETG and TPU without clogging.",
            "Removable magnetic PEI build plate: flex it and the print pops off.",
            "Silent stepper drivers keep noise below 50 dB.",
            "Resume printing after a power outage and a filament runout sensor.",
            "Comes 95 % assembled, ready to print in 15 minutes.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "3D Printer",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printers",
        brands: &["Layerforge", "Printwell"],
        more_brands: 5,
        models: &["S1", "S2 Pro", "Max 400", "K1 Speed"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} FDM 3D Printer with {feature_short}",
        intro: "{brand} {model}: a fast FDM 3D printer for prototypes and functional parts.",
        features: &[
            "CoreXY motion system prints at up to 500 mm/s.",
            "Enclosed chamber for ABS and ASA without warping.",
            "Large 400 x 400 x 450 mm build volume for cosplay and furniture parts.",
            "Dual Z-axis lead screws keep the gantry level.",
            "Touchscreen with Wi-Fi and camera monitoring.",
            "All-metal hotend reaches 300 C for engineering materials.",
            "Input shaping removes ringing at high speed.",
            "Open-source firmware and slicer profiles included.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "PLA Filament",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printing Supplies,Filament",
        brands: &["Filamento", "Extrudo", "PolySpool"],
        more_brands: 13,
        models: &[""],
        variants: COLOURS,
        extras: &[],
        keep: 0.8,
        title: "{brand} PLA Filament 1.75 mm, 1 kg Spool, {variant}",
        intro: "{brand} PLA 3D printer filament in {variant}, 1.75 mm, 1 kg (2.2 lbs) spool.",
        features: FILAMENT_FEATURES,
        near_duplicate: true,
    },
    Kind {
        noun: "PETG Filament",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printing Supplies,Filament",
        brands: &["Filamento", "Extrudo"],
        more_brands: 9,
        models: &[""],
        variants: &[
            "Black",
            "White",
            "Transparent",
            "Galaxy Blue",
            "Fire Engine Red",
            "Silver Grey",
            "Orange",
            "Grass Green",
        ],
        extras: &[],
        keep: 0.85,
        title: "{brand} PETG Filament 1.75 mm, 1 kg Spool, {variant}, Strong and Heat Resistant",
        intro: "{brand} PETG filament in {variant}: tougher than PLA, food safe and heat resistant to 80 C.",
        features: FILAMENT_FEATURES,
        near_duplicate: true,
    },
    Kind {
        noun: "Silk PLA Filament",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printing Supplies,Filament",
        brands: &["PolySpool"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "Silk Gold",
            "Silk Silver",
            "Silk Copper",
            "Silk Rainbow",
            "Silk Blue",
            "Silk Red",
            "Silk Green",
            "Silk Purple",
        ],
        extras: &[],
        keep: 1.0,
        title: "{brand} Shiny Silk PLA Filament 1.75 mm, {variant}, 1 kg",
        intro: "Metallic-look {variant} silk PLA from {brand} with a glossy, smooth surface.",
        features: FILAMENT_FEATURES,
        near_duplicate: true,
    },
    Kind {
        noun: "TPU Filament",
        theme: Interest::Printing,
        category: "Industrial & Scientific,Additive Manufacturing Products,3D Printing Supplies,Filament",
        brands: &["Extrudo"],
        more_brands: 5,
        models: &[""],
        variants: &[
            "Black",
            "White",
            "Transparent",
            "Fire Engine Red",
            "Galaxy Blue",
        ],
        extras: &[],
        keep: 1.0,
        title: "{brand} Flexible TPU Filament 95A, 1.75 mm, 800 g, {variant}",
        intro: "Shore 95A flexible TPU in {variant} for phone cases, gaskets and tires.",
        features: &[
            "Print slowly, 20-30 mm/s, with a direct drive extruder for best results.",
            "Excellent abrasion resistance and elasticity.",
            "Recommended nozzle temperature 210-230 C.",
            "Dried and vacuum packed.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Brass Nozzle",
        theme: Interest::Printing,
        category: PRINTING,
        brands: &["Voxelcraft", "Nozzlex"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "0.2 mm", "0.3 mm", "0.4 mm", "0.5 mm", "0.6 mm", "0.8 mm", "1.0 mm",
        ],
        extras: &["5 Pack", "10 Pack"],
        keep: 0.6,
        title: "{brand} MK8 Brass Nozzle {variant}, {extra}, for 1.75 mm Filament",
        intro: "{extra} of {variant} MK8 brass nozzles for 1.75 mm filament.",
        features: &[
            "Precision machined from H62 brass for smooth extrusion.",
            "M6 thread fits most MK8 hotends.",
            "Comes in a labelled storage box.",
            "Replace worn or clogged nozzles in minutes.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Build Plate",
        theme: Interest::Printing,
        category: PRINTING,
        brands: &["Voxelcraft", "Layerforge"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "220 x 220 mm",
            "235 x 235 mm",
            "257 x 257 mm",
            "310 x 310 mm",
        ],
        extras: &["Smooth PEI", "Textured PEI"],
        keep: 0.8,
        title: "{brand} {extra} Spring Steel Build Plate {variant}, Magnetic Base Included",
        intro: "{variant} flexible spring steel sheet with {extra} coating and a magnetic base.",
        features: &[
            "Prints stick when hot and release when the plate cools.",
            "Flex the sheet to pop prints off without a scraper.",
            "Double-sided, heat resistant to 120 C.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "UV Resin",
        theme: Interest::Printing,
        category: PRINTING,
        brands: &["Resinova"],
        more_brands: 5,
        models: &["Standard", "Water Washable", "ABS-Like"],
        variants: &["Grey", "Clear", "Black", "White", "Beige"],
        extras: &["500 g", "1 kg"],
        keep: 0.6,
        title: "{brand} {model} 3D Printer Resin, 405 nm UV Curing, {variant}, {extra}",
        intro: "{brand} {model} 405 nm photopolymer resin in {variant}, {extra} bottle.",
        features: &[
            "Low odor and low shrinkage for detailed miniatures.",
            "Works with LCD, DLP and SLA resin printers.",
            "High precision with smooth surfaces and crisp edges.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Digital Multimeter",
        theme: Interest::Electronics,
        category: TEST,
        brands: &["Ohmline", "Voltique", "Meterix"],
        more_brands: 9,
        models: &["DM-100", "DM-200 TRMS", "DM-600 Pro", "Pocket 6000"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Digital Multimeter, {feature_short}",
        intro: "The {brand} {model} measures voltage, current, resistance and continuity.",
        features: &[
            "True RMS readings on non-sinusoidal signals.",
            "6000 count display with backlight and bar graph.",
            "Auto ranging with manual override.",
            "Measures capacitance, frequency, diode and temperature.",
            "CAT III 600 V safety rating with fused current inputs.",
            "Non-contact voltage detection and a built-in flashlight.",
            "Data hold and auto power off save battery.",
            "Comes with test leads, thermocouple and carrying case.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Soldering Station",
        theme: Interest::Electronics,
        category: "Industrial & Scientific,Power & Hand Tools,Soldering Equipment",
        brands: &["Solderline", "Kestrel Labs"],
        more_brands: 9,
        models: &["SL-60", "SL-80 Digital", "SL-110 Pro"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Soldering Station, {feature_short}",
        intro: "{brand} {model} temperature controlled soldering station for electronics work.",
        features: &[
            "Heats from room temperature to 350 C in 9 seconds.",
            "Temperature range 200-480 C with a digital display.",
            "ESD safe iron with a silicone cable.",
            "Sleep mode lowers the temperature when the iron rests.",
            "Includes brass tip cleaner and five extra tips.",
            "Calibration offset for accurate tip temperature.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Solder Wire",
        theme: Interest::Electronics,
        category: "Industrial & Scientific,Power & Hand Tools,Soldering Equipment,Solder",
        brands: &["Solderline", "Kestrel Labs"],
        more_brands: 5,
        models: &["Lead-Free Sn99.3 Cu0.7", "Sn63 Pb37"],
        variants: &["0.5 mm", "0.6 mm", "0.8 mm", "1.0 mm"],
        extras: &["50 g", "100 g", "250 g"],
        keep: 0.7,
        title: "{brand} {model} Rosin Core Solder Wire {variant}, {extra}",
        intro: "{model} rosin core solder wire, {variant} diameter, {extra} reel.",
        features: &[
            "2 % no-clean flux core for bright, smooth joints.",
            "Low spatter and little smoke.",
            "For circuit boards, wires and small electronics repair.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Solderless Breadboard",
        theme: Interest::Electronics,
        category: ELECTRONICS,
        brands: &["Circuitry Co.", "Protoboard"],
        more_brands: 7,
        models: &[""],
        variants: &["400 Tie Points", "830 Tie Points", "1660 Tie Points"],
        extras: &["3 Pack", "6 Pack"],
        keep: 1.0,
        title: "{brand} Solderless Breadboard {variant}, {extra}, with Power Rails",
        intro: "{extra} of {variant} solderless breadboards with adhesive backing.",
        features: &[
            "Phosphor bronze contacts hold 20-29 AWG wires.",
            "Numbered rows and columns with red and blue power rails.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Jumper Wires",
        theme: Interest::Electronics,
        category: ELECTRONICS,
        brands: &["Circuitry Co."],
        more_brands: 7,
        models: &[""],
        variants: &["Male to Male", "Male to Female", "Female to Female"],
        extras: &["10 cm", "20 cm", "30 cm"],
        keep: 0.9,
        title: "{brand} Dupont Jumper Wires {variant}, {extra}, 40 Pin Ribbon Cable",
        intro: "40 pin {variant} Dupont jumper wire ribbon, {extra} long.",
        features: &[
            "Peel off single wires or keep them together as a ribbon.",
            "2.54 mm pitch connectors fit breadboards and pin headers.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Resistor Kit",
        theme: Interest::Electronics,
        category: ELECTRONICS,
        brands: &["Circuitry Co.", "Ohmline"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "300 Pcs 30 Values",
            "600 Pcs 30 Values",
            "1000 Pcs 50 Values",
            "2600 Pcs 130 Values",
        ],
        extras: &[],
        keep: 1.0,
        title: "{brand} Metal Film Resistor Assortment Kit, {variant}, 1 % 1/4 W",
        intro: "Resistor assortment with {variant}, 10 ohm to 1M ohm, 1 % tolerance.",
        features: &[
            "Each value packed and labelled in a storage box.",
            "Metal film resistors for low noise and high stability.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Development Board",
        theme: Interest::Electronics,
        category: "Industrial & Scientific,Electronic Components,Single Board Computers",
        brands: &["Kestrel Labs", "Microtinker"],
        more_brands: 7,
        models: &[
            "Uno R3 Compatible",
            "Nano V3 Compatible",
            "Mega 2560 Compatible",
            "ESP32 WiFi Bluetooth",
            "RP2040 Mini",
        ],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Development Board with USB Cable",
        intro: "{brand} {model} microcontroller board for learning and prototyping.",
        features: &[
            "Works with the Arduino IDE and MicroPython.",
            "USB-C connector for power and programming.",
            "Onboard LED, reset button and voltage regulator.",
            "Headers pre-soldered for breadboard use.",
            "Dual-core processor with WiFi and Bluetooth.",
            "14 digital I/O pins and 6 analog inputs.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Sensor Module",
        theme: Interest::Electronics,
        category: "Industrial & Scientific,Electronic Components,Sensors",
        brands: &["Microtinker"],
        more_brands: 7,
        models: &[
            "DHT22 Temperature and Humidity",
            "HC-SR04 Ultrasonic Distance",
            "BME280 Pressure",
            "MPU6050 Gyroscope Accelerometer",
            "PIR Motion",
            "Soil Moisture",
        ],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Sensor Module, 3 Pack",
        intro: "Three {model} sensor modules for microcontroller projects.",
        features: &[
            "Works at 3.3 V and 5 V logic.",
            "Example code and wiring diagrams available.",
            "I2C interface with selectable address.",
            "Pre-soldered pin headers.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Bench Power Supply",
        theme: Interest::Electronics,
        category: TEST,
        brands: &["Voltique", "Meterix"],
        more_brands: 7,
        models: &["30 V 5 A", "30 V 10 A", "60 V 5 A", "120 V 3 A"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} Adjustable DC Bench Power Supply {model}, {feature_short}",
        intro: "{brand} variable linear-regulated DC power supply, {model}.",
        features: &[
            "4-digit displays for voltage and current.",
            "Constant voltage and constant current modes.",
            "Short circuit and over temperature protection.",
            "USB charging port and banana jack outputs.",
            "Encoder knobs for coarse and fine adjustment.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Oscilloscope",
        theme: Interest::Electronics,
        category: TEST,
        brands: &["Meterix"],
        more_brands: 7,
        models: &[
            "DS-1052 50 MHz 2 Channel",
            "DS-1104 100 MHz 4 Channel",
            "DS-1202 200 MHz 2 Channel",
            "Handheld 40 MHz",
        ],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Digital Storage Oscilloscope",
        intro: "{brand} {model} oscilloscope with 1 GSa/s sampling.",
        features: &[
            "7 inch color display with 800 x 480 resolution.",
            "Automatic measurements and FFT.",
            "USB host for saving screenshots and waveforms.",
            "Decodes I2C, SPI and UART.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Heat Shrink Tubing",
        theme: Interest::Electronics,
        category: ELECTRONICS,
        brands: &["Shrinkwell"],
        more_brands: 7,
        models: &[""],
        variants: &["Black", "Red", "Clear", "Assorted Colors"],
        extras: &["328 Pcs", "580 Pcs"],
        keep: 1.0,
        title: "{brand} 2:1 Heat Shrink Tubing Kit, {extra}, {variant}",
        intro: "{extra} heat shrink tubes in {variant}, 2:1 shrink ratio, 8 sizes.",
        features: &["Polyolefin, flame retardant, shrinks at 70 C."],
        near_duplicate: true,
    },
    Kind {
        noun: "Glass Beaker",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Beakers",
        brands: &["Glassworks Scientific", "LabNova"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "50 ml", "100 ml", "250 ml", "400 ml", "600 ml", "1000 ml", "2000 ml",
        ],
        extras: &["Single", "Set of 5"],
        keep: 0.7,
        title: "{brand} Borosilicate Glass Beaker {variant}, Low Form with Spout, {extra}",
        intro: "{variant} low form griffin beaker of borosilicate 3.3 glass, {extra}.",
        features: &[
            "Printed white graduations and a marking spot.",
            "Resists thermal shock from -40 to 500 C.",
            "Heavy wall and beaded rim for durability.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Erlenmeyer Flask",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Flasks",
        brands: &["Glassworks Scientific", "LabNova"],
        more_brands: 7,
        models: &[""],
        variants: &["50 ml", "125 ml", "250 ml", "500 ml", "1000 ml"],
        extras: &[],
        keep: 1.0,
        title: "{brand} Erlenmeyer Flask {variant}, Narrow Mouth, Borosilicate Glass",
        intro: "{variant} conical flask with a narrow mouth and graduations.",
        features: &[
            "Borosilicate 3.3 glass for heating and autoclaving.",
            "Fits rubber stoppers.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Graduated Cylinder",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables",
        brands: &["Glassworks Scientific", "Clearwell"],
        more_brands: 5,
        models: &["Glass", "Polypropylene"],
        variants: &["10 ml", "25 ml", "50 ml", "100 ml", "250 ml", "500 ml"],
        extras: &[],
        keep: 0.9,
        title: "{brand} {model} Graduated Cylinder {variant}, Class B, Hexagonal Base",
        intro: "{variant} {model} measuring cylinder with a spout and a stable hexagonal base.",
        features: &["Class B accuracy with clear graduations."],
        near_duplicate: true,
    },
    Kind {
        noun: "Nitrile Gloves",
        theme: Interest::Lab,
        category: SAFETY,
        brands: &["BioShield", "Safeguard Pro"],
        more_brands: 7,
        models: &[""],
        variants: &["Small", "Medium", "Large", "X-Large"],
        extras: &["Blue", "Black", "Purple"],
        keep: 0.8,
        title: "{brand} Nitrile Exam Gloves, Powder Free, Size {variant}, {extra}, Box of 100",
        intro: "Box of 100 {extra} disposable nitrile gloves, size {variant}.",
        features: &[
            "Latex free, 4 mil thick, textured fingertips.",
            "For lab work, cleaning and food handling.",
            "Beaded cuff for easy donning.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Pipette Tips",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Pipettes",
        brands: &["Pipetta", "LabNova"],
        more_brands: 7,
        models: &[""],
        variants: &["10 ul", "200 ul", "1000 ul"],
        extras: &["Racked, 96 per Rack", "Bulk Bag of 1000"],
        keep: 1.0,
        title: "{brand} Universal Pipette Tips {variant}, {extra}",
        intro: "{variant} universal fit pipette tips, {extra}.",
        features: &["Polypropylene, DNase, RNase and pyrogen free."],
        near_duplicate: true,
    },
    Kind {
        noun: "Micropipette",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Pipettes",
        brands: &["Pipetta"],
        more_brands: 7,
        models: &[
            "0.5-10 ul",
            "2-20 ul",
            "20-200 ul",
            "100-1000 ul",
            "1-10 ml",
        ],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} Adjustable Volume Micropipette {model}, Single Channel",
        intro: "{brand} single channel micropipette, adjustable {model}.",
        features: &[
            "Fully autoclavable with a lightweight ergonomic body.",
            "Calibration certificate included.",
            "Soft tip ejector and volume lock.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Safety Goggles",
        theme: Interest::Lab,
        category: SAFETY,
        brands: &["Safeguard Pro", "BioShield"],
        more_brands: 7,
        models: &["Anti-Fog Chemical Splash", "Over Glasses", "Indirect Vent"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Safety Goggles, ANSI Z87.1",
        intro: "{brand} {model} goggles with a wide field of view.",
        features: &[
            "Anti-scratch, anti-fog polycarbonate lens.",
            "Adjustable elastic strap fits over prescription glasses.",
            "UV400 protection.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Lab Coat",
        theme: Interest::Lab,
        category: SAFETY,
        brands: &["LabNova"],
        more_brands: 7,
        models: &[""],
        variants: &["Small", "Medium", "Large", "X-Large", "XX-Large"],
        extras: &["White", "Blue"],
        keep: 0.8,
        title: "{brand} Professional Lab Coat, Unisex, {extra}, Size {variant}",
        intro: "{extra} knee length lab coat, size {variant}, with three pockets.",
        features: &["Poly-cotton blend, machine washable, snap closures."],
        near_duplicate: true,
    },
    Kind {
        noun: "Petri Dishes",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables",
        brands: &["Clearwell", "LabNova"],
        more_brands: 7,
        models: &[""],
        variants: &["60 mm", "90 mm", "100 mm"],
        extras: &["Pack of 20", "Pack of 100"],
        keep: 1.0,
        title: "{brand} Sterile Plastic Petri Dishes {variant}, {extra}",
        intro: "{variant} sterile polystyrene petri dishes with lids, {extra}.",
        features: &["Individually sterilised and stackable."],
        near_duplicate: true,
    },
    Kind {
        noun: "Magnetic Stirrer",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Instruments & Equipment",
        brands: &["LabNova", "Thermix"],
        more_brands: 7,
        models: &["MS-3 Hot Plate", "MS-5 Digital Hot Plate", "Mini Stirrer"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Magnetic Stirrer, {feature_short}",
        intro: "{brand} {model} magnetic stirrer for mixing up to 3 litres.",
        features: &[
            "Speed 100-1500 rpm with smooth start.",
            "Hot plate heats to 350 C.",
            "Ceramic coated top resists chemicals.",
            "Includes two stir bars.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Analytical Balance",
        theme: Interest::Lab,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Instruments & Equipment",
        brands: &["Precisa Scales", "Thermix"],
        more_brands: 7,
        models: &[
            "100 g x 0.001 g",
            "200 g x 0.01 g",
            "500 g x 0.01 g",
            "3000 g x 0.1 g",
        ],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} Digital Lab Balance {model}, {feature_short}",
        intro: "{brand} precision scale, capacity and readability {model}.",
        features: &[
            "Draft shield for stable readings.",
            "Counting, percentage and tare functions.",
            "Calibration weight included.",
            "Runs on mains or batteries.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Compound Microscope",
        theme: Interest::Microscopy,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Instruments & Equipment,Microscopes",
        brands: &["Lumascope", "OptiView"],
        more_brands: 5,
        models: &["Student 40X-1000X", "Lab 40X-2000X", "Trinocular 40X-2500X"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Compound Microscope, {feature_short}",
        intro: "{brand} {model} compound microscope for school and lab.",
        features: &[
            "Wide field 10X and 20X eyepieces.",
            "LED illumination with adjustable brightness.",
            "Coaxial coarse and fine focus.",
            "Mechanical stage with slide clips.",
            "Abbe condenser with iris diaphragm.",
            "Camera port for a digital eyepiece.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Microscope Slides",
        theme: Interest::Microscopy,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Microscope Slides",
        brands: &["OptiView", "Clearwell"],
        more_brands: 5,
        models: &["Blank Frosted", "Blank Plain"],
        variants: &["Pack of 50", "Pack of 72", "Pack of 100"],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Microscope Slides 25 x 75 mm, {variant}",
        intro: "{model} glass slides, 25 x 75 mm, 1 mm thick, {variant}.",
        features: &["Pre-cleaned, ground edges, ready to use."],
        near_duplicate: true,
    },
    Kind {
        noun: "Prepared Slides",
        theme: Interest::Microscopy,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Microscope Slides",
        brands: &["Lumascope"],
        more_brands: 5,
        models: &["Biology", "Botany", "Zoology", "Human Tissue"],
        variants: &["Set of 25", "Set of 50"],
        extras: &[],
        keep: 1.0,
        title: "{brand} Prepared Microscope Slides, {model}, {variant}",
        intro: "{variant} prepared {model} slides with specimens for study.",
        features: &["Stained specimens in a wooden storage box with labels."],
        near_duplicate: true,
    },
    Kind {
        noun: "Cover Glass",
        theme: Interest::Microscopy,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Supplies & Consumables,Microscope Slides",
        brands: &["OptiView"],
        more_brands: 5,
        models: &[""],
        variants: &["18 x 18 mm", "22 x 22 mm", "24 x 50 mm"],
        extras: &["100 Pcs", "200 Pcs"],
        keep: 1.0,
        title: "{brand} Microscope Cover Glass {variant}, No. 1 Thickness, {extra}",
        intro: "{extra} cover slips, {variant}, 0.13-0.16 mm thick.",
        features: &["Optical quality glass for oil immersion."],
        near_duplicate: true,
    },
    Kind {
        noun: "USB Microscope",
        theme: Interest::Microscopy,
        category: "Industrial & Scientific,Lab & Scientific Products,Lab Instruments & Equipment,Microscopes",
        brands: &["OptiView", "Lumascope"],
        more_brands: 5,
        models: &["50X-1000X", "Pro 1600X", "Handheld 500X with Screen"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} USB Digital Microscope, {feature_short}",
        intro: "{brand} {model} digital microscope for circuit boards, coins and insects.",
        features: &[
            "8 adjustable LEDs light the sample evenly.",
            "Works with Windows, macOS and Android.",
            "Captures 1080p photos and video.",
            "Metal stand with fine focus.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Digital Caliper",
        theme: Interest::Workshop,
        category: TEST,
        brands: &["Precisa", "Benchmate"],
        more_brands: 7,
        models: &["Stainless Steel", "Carbon Fiber"],
        variants: &["150 mm / 6 inch", "200 mm / 8 inch", "300 mm / 12 inch"],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Digital Caliper {variant}, Inch/Metric/Fraction",
        intro: "{brand} {model} electronic vernier caliper, {variant}.",
        features: &[
            "Large LCD with 0.01 mm resolution.",
            "Measures outside, inside, depth and step.",
            "Auto off and zero at any position.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Screwdriver Set",
        theme: Interest::Workshop,
        category: TOOLS,
        brands: &["Benchmate", "Torqwell"],
        more_brands: 7,
        models: &["24 in 1", "64 in 1", "120 in 1"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Precision Screwdriver Set, {feature_short}",
        intro: "{brand} {model} precision screwdriver kit for electronics repair.",
        features: &[
            "S2 steel bits: Phillips, Torx, Pentalobe and hex.",
            "Magnetic bit holder with a swivel cap.",
            "Extension rod and spudgers included.",
            "Sturdy case with labelled slots.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Tweezers",
        theme: Interest::Workshop,
        category: TOOLS,
        brands: &["Precisa", "Benchmate"],
        more_brands: 7,
        models: &[""],
        variants: &["6 Piece", "9 Piece", "12 Piece"],
        extras: &[],
        keep: 1.0,
        title: "{brand} Anti-Static ESD Tweezers Set, {variant}, Stainless Steel",
        intro: "{variant} set of precision ESD safe tweezers.",
        features: &["Fine, curved and flat tips for SMD work."],
        near_duplicate: true,
    },
    Kind {
        noun: "Heat Gun",
        theme: Interest::Workshop,
        category: TOOLS,
        brands: &["Torqwell", "Kestrel Labs"],
        more_brands: 7,
        models: &["1800 W Dual Temperature", "2000 W Digital", "Mini 300 W"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Heat Gun, {feature_short}",
        intro: "{brand} {model} hot air gun for shrink tubing, paint stripping and crafts.",
        features: &[
            "Heats up in seconds.",
            "Adjustable temperature 50-650 C.",
            "Four nozzles included.",
            "Overload protection and a stand.",
        ],
        near_duplicate: false,
    },
    Kind {
        noun: "Kapton Tape",
        theme: Interest::Workshop,
        category: TAPES,
        brands: &["Stickwell", "Bondex"],
        more_brands: 7,
        models: &[""],
        variants: &["6 mm", "10 mm", "12 mm", "20 mm", "25 mm", "50 mm"],
        extras: &["33 m"],
        keep: 0.85,
        title: "{brand} Kapton Polyimide High Temperature Tape {variant} x {extra}",
        intro: "{variant} wide, {extra} long polyimide tape.",
        features: &[
            "Withstands 260 C for masking during soldering and 3D printing.",
            "Silicone adhesive leaves no residue.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Epoxy",
        theme: Interest::Workshop,
        category: TAPES,
        brands: &["Bondex"],
        more_brands: 7,
        models: &["5 Minute", "30 Minute", "Clear Casting"],
        variants: &["25 ml", "50 ml"],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Two-Part Epoxy Adhesive, {variant}",
        intro: "{brand} {model} epoxy in a {variant} dual syringe.",
        features: &[
            "Bonds metal, wood, ceramic and most plastics.",
            "Cures clear and sandable.",
        ],
        near_duplicate: true,
    },
    Kind {
        noun: "Electrical Tape",
        theme: Interest::Workshop,
        category: TAPES,
        brands: &["Stickwell"],
        more_brands: 7,
        models: &[""],
        variants: &[
            "Black",
            "Red",
            "Blue",
            "Green",
            "Yellow",
            "White",
            "Rainbow 10 Pack",
        ],
        extras: &[],
        keep: 1.0,
        title: "{brand} PVC Electrical Tape 19 mm x 20 m, {variant}",
        intro: "{variant} vinyl electrical insulating tape, 19 mm x 20 m.",
        features: &["Flame retardant, rated to 600 V."],
        near_duplicate: true,
    },
    Kind {
        noun: "Glue Gun",
        theme: Interest::Workshop,
        category: TOOLS,
        brands: &["Bondex", "Torqwell"],
        more_brands: 7,
        models: &["Mini 20 W", "Full Size 100 W", "Cordless"],
        variants: &[""],
        extras: &[],
        keep: 1.0,
        title: "{brand} {model} Hot Glue Gun with 30 Glue Sticks",
        intro: "{brand} {model} hot melt glue gun for crafts and repairs.",
        features: &[
            "Heats in 3 minutes.",
            "Anti-drip nozzle and a folding stand.",
            "Safety switch and insulated nozzle.",
        ],
        near_duplicate: false,
    },
];

/// Made-up brands of each theme, from which kinds draw `more_brands`.
fn theme_brands(theme: Interest) -> &'static [&'static str] {
    match theme {
        Interest::Printing => &[
            "Spoolhaus",
            "Meltworks",
            "Fabrika",
            "Printastic",
            "Stratum",
            "Vertex3D",
            "Hotend Co.",
            "Layerly",
            "Filamento",
            "Extrudo",
            "PolySpool",
            "Nozzlex",
            "Printerra",
            "Fuse & Form",
            "Ultralayer",
            "Makerhaus",
        ],
        Interest::Electronics => &[
            "Ampere & Co.",
            "Bitwise",
            "Joule Labs",
            "Wattson",
            "Fluxworks",
            "Ohmline",
            "Voltique",
            "Meterix",
            "Solderline",
            "Kestrel Labs",
            "Circuitry Co.",
            "Microtinker",
            "Sparkbench",
            "Resistorium",
            "Tinwire",
        ],
        Interest::Lab => &[
            "Kelvin Labware",
            "Beakerline",
            "Sterilab",
            "Titrex",
            "Glassworks Scientific",
            "LabNova",
            "Clearwell",
            "Pipetta",
            "BioShield",
            "Thermix",
            "Safeguard Pro",
            "Aseptica",
            "Volumetrics",
            "Northlab",
        ],
        Interest::Microscopy => &[
            "Lensmark",
            "Microvista",
            "Brightfield Optics",
            "Lumascope",
            "OptiView",
            "Clearwell",
            "Specimenta",
            "Focal Point",
        ],
        Interest::Workshop => &[
            "Gripmaster",
            "Handywell",
            "Forgeline",
            "Precisa",
            "Benchmate",
            "Torqwell",
            "Stickwell",
            "Bondex",
            "Kestrel Labs",
            "Toolcraft",
            "Adhesa",
            "Workright",
        ],
    }
}

/// Short title fragments for lines whose title names one of their features.
const FEATURE_SHORTS: &[&str] = &[
    "Fast Heat Up",
    "LCD Display",
    "Professional Grade",
    "Compact Design",
    "With Carrying Case",
    "Upgraded Version",
    "For Beginners and Pros",
    "High Precision",
];

/// Builds the catalog for `seed`: every product line of every kind, variants kept with the
/// kind's probability, items shuffled so ids do not reveal families.
pub fn generate(seed: u64) -> Catalog {
    let mut rng = SeededRng::new(seed);
    let mut drafts: Vec<(Product, usize)> = Vec::new();
    let mut families: Vec<Family> = Vec::new();
    for (kind_index, kind) in KINDS.iter().enumerate() {
        let mut lines = 0;
        let mut pool: Vec<&str> = theme_brands(kind.theme)
            .iter()
            .copied()
            .filter(|b| !kind.brands.contains(b))
            .collect();
        rng.shuffle(&mut pool);
        pool.truncate(kind.more_brands);
        let brands: Vec<&str> = kind.brands.iter().copied().chain(pool).collect();
        for brand in &brands {
            for model in kind.models {
                let family = families.len();
                let shared = pick_features(&mut rng, kind.features, 3);
                let short = *rng.pick(FEATURE_SHORTS);
                let extras: &[&str] = if kind.extras.is_empty() {
                    &[""]
                } else {
                    kind.extras
                };
                let mut n_kept = 0;
                for variant in kind.variants {
                    for extra in extras {
                        if kind.keep < 1.0 && !rng.chance(kind.keep) {
                            continue;
                        }
                        let fill = |template: &str| {
                            template
                                .replace("{brand}", brand)
                                .replace("{model}", model)
                                .replace("{variant}", variant)
                                .replace("{extra}", extra)
                                .replace("{noun}", kind.noun)
                                .replace("{feature_short}", short)
                                .replace("  ", " ")
                                .replace(" ,", ",")
                                .replace(", ,", ",")
                                .trim_end_matches([',', ' '])
                                .to_string()
                        };
                        let features = if kind.near_duplicate {
                            shared.clone()
                        } else {
                            pick_features(&mut rng, kind.features, 3)
                        };
                        let description = std::iter::once(fill(kind.intro))
                            .chain(features.iter().map(|f| f.to_string()))
                            .collect::<Vec<_>>()
                            .join(" ");
                        let product = Product {
                            title: fill(kind.title),
                            description,
                            brand: brand.to_string(),
                            categories: kind.category.to_string(),
                            family,
                            variant: n_kept,
                        };
                        drafts.push((product, family));
                        n_kept += 1;
                    }
                }
                if n_kept > 0 {
                    families.push(Family {
                        theme: kind.theme,
                        products: Vec::new(),
                        popularity: 0.3 + 1.7 * rng.unit(),
                        near_duplicate: kind.near_duplicate,
                        kind: kind_index,
                        line: lines,
                    });
                    lines += 1;
                }
            }
        }
    }
    rng.shuffle(&mut drafts);
    let mut products = Vec::with_capacity(drafts.len());
    for (position, (product, family)) in drafts.into_iter().enumerate() {
        families[family].products.push(position);
        products.push(product);
    }
    Catalog { products, families }
}

/// `n` distinct features in a random order (all of them when there are fewer).
fn pick_features(rng: &mut SeededRng, features: &[&'static str], n: usize) -> Vec<&'static str> {
    let mut pool = features.to_vec();
    rng.shuffle(&mut pool);
    pool.truncate(n);
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_is_deterministic_and_consistent() {
        let a = generate(1);
        assert_eq!(a, generate(1));
        assert!(a.products.len() > 500, "{}", a.products.len());
        for (f, family) in a.families.iter().enumerate() {
            assert!(!family.products.is_empty());
            for &p in &family.products {
                assert_eq!(a.products[p].family, f);
            }
        }
        for p in &a.products {
            assert!(
                !p.title.contains('{') && !p.description.contains('{'),
                "{}",
                p.title
            );
            assert!(
                !p.title.ends_with(',') && !p.title.contains(" ,"),
                "{}",
                p.title
            );
        }
        let titles: std::collections::HashSet<&str> =
            a.products.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles.len(), a.products.len(), "titles are unique");
        assert!(titles.contains("Voxelcraft Mini 3D Printer, Auto Bed Leveling, Direct Drive Extruder, Removable PEI Build Plate"));
    }
}
