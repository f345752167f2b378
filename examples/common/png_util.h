/* examples/common/png_util.h - tiny libpng helpers shared by the examples
 * (header-only, C99). */
#ifndef TIC_EXAMPLES_PNG_UTIL_H
#define TIC_EXAMPLES_PNG_UTIL_H

#include <png.h>
#include <stdio.h>
#include <stdlib.h>

/* Writes an 8-bit RGB image (w*h*3 bytes, row-major, top row first).
 * Returns 0 on success, -1 (after printing why) on failure. */
static int png_write_rgb(const char *path, const unsigned char *rgb, int w,
                         int h) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    perror(path);
    return -1;
  }
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  png_infop info = png ? png_create_info_struct(png) : NULL;
  if (!png || !info) {
    fprintf(stderr, "%s: libpng initialisation failed\n", path);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) {
    fprintf(stderr, "%s: libpng write error\n", path);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return -1;
  }
  png_init_io(png, f);
  png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < h; ++y)
    png_write_row(png, (png_const_bytep)(rgb + (size_t)y * w * 3));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  if (fclose(f) != 0) {
    perror(path);
    return -1;
  }
  return 0;
}

/* Maps v in [0, 1] (clamped) to 0..255. */
static unsigned char png_unit_to_byte(float v) {
  if (!(v > 0.0f))
    return 0;
  if (v >= 1.0f)
    return 255;
  return (unsigned char)(v * 255.0f + 0.5f);
}

#endif
