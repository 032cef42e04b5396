// SPDX-License-Identifier: Apache-2.0
#pragma once

// A streaming RFC 4180 reader for files too big to hold: one row at a time, quoted
// cells with doubled quotes, CRLF or LF line ends. Written apart from the exporter so
// that the comparison does not trust the code it checks.

#include <cstdio>
#include <string>
#include <vector>

namespace cooldown::bench {

class CsvStream
{
public:
    explicit CsvStream(const char *path) : m_file(std::fopen(path, "rb")) {}
    ~CsvStream()
    {
        if (m_file)
            std::fclose(m_file);
    }
    CsvStream(const CsvStream &) = delete;
    CsvStream &operator=(const CsvStream &) = delete;

    bool isOpen() const { return m_file != nullptr; }
    const std::string &error() const { return m_error; }

    // False at the end of the file, or on malformed input (error() says where).
    bool nextRow(std::vector<std::string> *cells)
    {
        cells->clear();
        int c = get();
        if (c == EOF)
            return false;
        std::string cell;
        while (true) {
            if (c == '"' && cell.empty()) {
                while (true) {
                    c = get();
                    if (c == EOF)
                        return fail("unterminated quoted cell");
                    if (c == '"') {
                        c = get();
                        if (c != '"')
                            break;
                    }
                    cell.push_back(char(c));
                }
                if (c != ',' && c != '\r' && c != '\n' && c != EOF)
                    return fail("text after a closing quote");
            }
            if (c == ',') {
                cells->push_back(std::move(cell));
                cell.clear();
                c = get();
                continue;
            }
            if (c == '\r') {
                if (get() != '\n')
                    return fail("a CR without LF");
                c = '\n';
            }
            if (c == '\n' || c == EOF) {
                cells->push_back(std::move(cell));
                ++m_rows;
                return true;
            }
            cell.push_back(char(c));
            c = get();
        }
    }

private:
    int get()
    {
        if (m_pos == m_end) {
            m_end = std::fread(m_buffer, 1, sizeof m_buffer, m_file);
            m_pos = 0;
            if (m_end == 0)
                return EOF;
        }
        return static_cast<unsigned char>(m_buffer[m_pos++]);
    }
    bool fail(const char *what)
    {
        m_error = std::string(what) + " in row " + std::to_string(m_rows + 1);
        return false;
    }

    std::FILE *m_file = nullptr;
    char m_buffer[1 << 16];
    size_t m_pos = 0;
    size_t m_end = 0;
    long long m_rows = 0;
    std::string m_error;
};

} // namespace cooldown::bench
