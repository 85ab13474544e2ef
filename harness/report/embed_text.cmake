# cmake -DIN=file -DOUT=file.inc -P embed_text.cmake: the bytes of IN as a C
# initializer list ending in 0, to embed a text file as a string:
#   static const char text[] =
#   #include "file.inc"
#   ;
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "{\n${bytes}0x00}\n")
file(RENAME ${OUT}.tmp ${OUT})
