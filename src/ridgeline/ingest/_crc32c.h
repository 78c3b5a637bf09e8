/* CRC32C (Castagnoli), as TFRecord uses it: hardware instructions where the CPU has them, checked at run time
 * (SSE4.2 on x86-64, the CRC32 extension on AArch64), else slicing-by-8 tables.
 *
 * crc32c_update(register, bytes, n) advances the raw register (no initial or final inversion);
 * crc32c(bytes, n) is the usual checksum; crc32c_init() must run once before either (it fills the tables and
 * picks the implementation; nothing changes afterwards, so any number of threads may call them at once).
 */
#ifndef RIDGELINE_CRC32C_H
#define RIDGELINE_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CRC32C_POLY 0x82F63B78u /* reflected */

static uint32_t crc32c_table[8][256];
static int crc32c_hardware = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define RIDGELINE_BIG_ENDIAN 1
#endif

static inline uint64_t load_le64(const uint8_t *p) {
    uint64_t value;
    memcpy(&value, p, 8);
#ifdef RIDGELINE_BIG_ENDIAN
    value = __builtin_bswap64(value);
#endif
    return value;
}

static inline uint32_t load_le32(const uint8_t *p) {
    uint32_t value;
    memcpy(&value, p, 4);
#ifdef RIDGELINE_BIG_ENDIAN
    value = __builtin_bswap32(value);
#endif
    return value;
}

static uint32_t crc32c_software(uint32_t crc, const uint8_t *p, size_t n) {
#ifndef RIDGELINE_BIG_ENDIAN
    while (n >= 8) {
        uint64_t word = load_le64(p) ^ crc;
        crc = crc32c_table[7][word & 0xFF] ^ crc32c_table[6][(word >> 8) & 0xFF] ^
              crc32c_table[5][(word >> 16) & 0xFF] ^ crc32c_table[4][(word >> 24) & 0xFF] ^
              crc32c_table[3][(word >> 32) & 0xFF] ^ crc32c_table[2][(word >> 40) & 0xFF] ^
              crc32c_table[1][(word >> 48) & 0xFF] ^ crc32c_table[0][word >> 56];
        p += 8;
        n -= 8;
    }
#endif
    while (n--) crc = crc32c_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

/* With hardware CRC: RIDGELINE_CRC_TARGET marks a function that may use it (only called when crc32c_hardware),
 * crc32c_hardware_u64(register, word) advances the raw register by 8 little-endian bytes in one instruction. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define RIDGELINE_HAVE_HARDWARE_CRC 1
#define RIDGELINE_CRC_TARGET __attribute__((target("sse4.2")))
RIDGELINE_CRC_TARGET static inline uint32_t crc32c_hardware_u64(uint32_t crc, uint64_t word) {
    return (uint32_t)_mm_crc32_u64(crc, word);
}
RIDGELINE_CRC_TARGET static uint32_t crc32c_hardware_update(uint32_t crc, const uint8_t *p, size_t n) {
    uint64_t wide = crc;
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        wide = _mm_crc32_u64(wide, word);
        p += 8;
        n -= 8;
    }
    crc = (uint32_t)wide;
    if (n >= 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        crc = _mm_crc32_u32(crc, word);
        p += 4;
        n -= 4;
    }
    while (n--) crc = _mm_crc32_u8(crc, *p++);
    return crc;
}
static int crc32c_detect(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2");
}
#elif defined(__aarch64__) && defined(__GNUC__) && defined(__linux__)
#include <sys/auxv.h>
#define RIDGELINE_HAVE_HARDWARE_CRC 1
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#ifdef __clang__
#define RIDGELINE_CRC_TARGET __attribute__((target("crc")))
#else
#define RIDGELINE_CRC_TARGET __attribute__((target("+crc")))
#endif
RIDGELINE_CRC_TARGET static inline uint32_t crc32c_hardware_u64(uint32_t crc, uint64_t word) {
    return __builtin_aarch64_crc32cx(crc, word);
}
RIDGELINE_CRC_TARGET static uint32_t crc32c_hardware_update(uint32_t crc, const uint8_t *p, size_t n) {
    while (n >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_aarch64_crc32cx(crc, word);
        p += 8;
        n -= 8;
    }
    while (n--) crc = __builtin_aarch64_crc32cb(crc, *p++);
    return crc;
}
static int crc32c_detect(void) { return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0; }
#endif

static void crc32c_init(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t crc = i;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ CRC32C_POLY : crc >> 1;
        crc32c_table[0][i] = crc;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++)
            crc32c_table[k][i] = (crc32c_table[k - 1][i] >> 8) ^ crc32c_table[0][crc32c_table[k - 1][i] & 0xFF];
#ifdef RIDGELINE_HAVE_HARDWARE_CRC
    crc32c_hardware = crc32c_detect();
#endif
}

static inline uint32_t crc32c_update(uint32_t crc, const uint8_t *p, size_t n) {
#ifdef RIDGELINE_HAVE_HARDWARE_CRC
    if (crc32c_hardware) return crc32c_hardware_update(crc, p, n);
#endif
    return crc32c_software(crc, p, n);
}

static inline uint32_t crc32c(const uint8_t *p, size_t n) { return ~crc32c_update(0xFFFFFFFFu, p, n); }

/* TFRecord's mask: rotate right by 15 bits and add a constant. */
static inline uint32_t masked_crc32c(const uint8_t *p, size_t n) {
    uint32_t crc = crc32c(p, n);
    return ((crc >> 15) | (crc << 17)) + 0xA282EAD8u;
}

#endif
